package dev.updraft.edge;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Keeps two kinds of malformed HTTP/1 from ending in something other than a 4xx (found by the manifest
 * fuzz in system-tests), as a Netty handler just before Vert.x's own:
 *
 * <ul>
 *   <li>a request line naming a version other than {@code HTTP/1.0} and {@code HTTP/1.1}
 *       ({@code HTTP/2.0}, {@code HTTP/0.9}, {@code http/1.1}): Vert.x answers 501, a server error for a
 *       client's mistake. The guard marks such a request as a decoding failure, which Vert.x hands to {@link #invalid}: 400 {@code unsupported-http-version};
 *   <li>a malformed request body (a bad chunk size): Vert.x closes the connection at once, dropping the
 *       answer the handler already wrote but Vert.x had not flushed yet, so the client waits for nothing.
 *       The guard flushes that answer before the failure reaches Vert.x.
 * </ul>
 *
 * It reaches the pipeline through Vert.x's {@link ConnectionBase} (an implementation class): if a Vert.x
 * upgrade renames its handler, {@link #install} does nothing and the fuzz test fails, rather than every
 * connection. One instance per connection; confined to its event loop.
 */
final class HttpGuard extends ChannelInboundHandlerAdapter {
  static final String NAME = "updraft-http-guard";
  /** Vert.x's own handler, last in the pipeline: everything decoded passes the guard just before it. */
  private static final String VERTX_HANDLER = "handler";

  /** The decoding failure of a request line with an unsupported version. */
  static final class UnsupportedVersion extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UnsupportedVersion(String version) {
      super(version, null);
    }
  }

  /** Puts a guard into the HTTP/1 pipeline of {@code connection} (the servers' connection handler). */
  static void install(HttpConnection connection) {
    if (!(connection instanceof ConnectionBase)) {
      return; // HTTP/2: neither problem exists there
    }
    ChannelPipeline p = ((ConnectionBase) connection).channel().pipeline();
    if (p.get(VERTX_HANDLER) != null && p.get(NAME) == null) {
      // before Vert.x's handler, not right after the decoder: the h2c upgrade handler forwards the first
      // request of a connection from its own place in the pipeline
      p.addBefore(VERTX_HANDLER, NAME, new HttpGuard());
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest) {
      HttpRequest r = (HttpRequest) msg;
      HttpVersion v = r.protocolVersion();
      // identity, as Vert.x compares: "http/1.1" equals HTTP_1_1 but is another instance, which Vert.x refuses
      if (r.decoderResult().isSuccess() && v != HttpVersion.HTTP_1_1 && v != HttpVersion.HTTP_1_0) {
        r.setProtocolVersion(HttpVersion.HTTP_1_1); // the version the refusal is written in
        r.setDecoderResult(DecoderResult.failure(new UnsupportedVersion(v.text())));
      }
    } else if (msg instanceof HttpContent && ((HttpContent) msg).decoderResult().isFailure()) {
      ctx.flush(); // the answer written for the request before its body turned out malformed
    }
    ctx.fireChannelRead(msg);
  }

  /** The server's invalid-request handler: 400 for an unsupported version, Vert.x's default otherwise. */
  static void invalid(HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    if (cause instanceof UnsupportedVersion) {
      req.response()
          .setStatusCode(400)
          .putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .putHeader("connection", "close")
          .end(ErrorBody.of("unsupported-http-version", "the request line must name HTTP/1.1 or HTTP/1.0 (in upper case), or use HTTP/2: got "
              + ErrorBody.shown(cause.getMessage())));
    } else {
      HttpServerRequest.DEFAULT_INVALID_REQUEST_HANDLER.handle(req);
    }
  }
}
