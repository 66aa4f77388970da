package dev.updraft.edge;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import dev.updraft.common.http.HeaderTimeout;
import io.micrometer.core.instrument.Counter;
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
 * It also tells the connection's {@link HeaderTimeout} (installed with it, ahead of the decoder) when a
 * request head and a request end have been decoded.
 *
 * <p>Both reach the pipeline through Vert.x's {@link ConnectionBase} (an implementation class): if a
 * Vert.x upgrade renames its handlers, {@link #install} does nothing and the fuzz and slow-client tests
 * fail, rather than every connection. One instance per connection; confined to its event loop.
 */
final class HttpGuard extends ChannelInboundHandlerAdapter {
  static final String NAME = "updraft-http-guard";
  private static final byte[] TIMEOUT_ANSWER = HeaderTimeout.answer("the edge");

  private final HeaderTimeout headerTimeout;

  private HttpGuard(HeaderTimeout headerTimeout) {
    this.headerTimeout = headerTimeout;
  }

  /** The decoding failure of a request line with an unsupported version. */
  static final class UnsupportedVersion extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UnsupportedVersion(String version) {
      super(version, null);
    }
  }

  /**
   * Puts a guard and a header timeout into the HTTP/1 pipeline of {@code connection} (the servers'
   * connection handler, which runs when the connection is accepted: the servers do not offer h2c, whose
   * detection would create the connection only after the first request head).
   */
  static void install(HttpConnection connection, long headerTimeoutNanos, Counter headerTimeouts) {
    ChannelPipeline p = HeaderTimeout.pipeline(connection);
    if (p != null) {
      HeaderTimeout timeout = new HeaderTimeout(headerTimeoutNanos, headerTimeouts, TIMEOUT_ANSWER);
      p.addBefore(HeaderTimeout.decoderName(), HeaderTimeout.NAME, timeout);
      p.addBefore(HeaderTimeout.vertxHandlerName(), NAME, new HttpGuard(timeout));
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
      headerTimeout.headDecoded();
    }
    if (msg instanceof LastHttpContent) {
      headerTimeout.requestDecoded(); // a request without a body comes as a head and an empty last content
    }
    if (msg instanceof HttpContent && ((HttpContent) msg).decoderResult().isFailure()) {
      ctx.flush(); // the answer written for the request before its body turned out malformed
    }
    ctx.fireChannelRead(msg);
  }

  /** The longest request line (method, target, version) the edge reads: 414 beyond. */
  static final int MAX_REQUEST_LINE_BYTES = 4096;

  private static void refuse(HttpServerRequest req, int status, String code, String message) {
    req.response()
        .setStatusCode(status)
        .putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
        .putHeader("connection", "close")
        .end(ErrorBody.of(code, message));
  }

  /**
   * The server's invalid-request handler, a JSON error in each case: 400 {@code unsupported-http-version}, 431 or
   * 414 for a request head or line above the limits, 400 {@code bad-request} naming the decoder's complaint
   * otherwise.
   */
  static void invalid(HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    if (cause instanceof UnsupportedVersion) {
      req.response()
          .setStatusCode(400)
          .putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .putHeader("connection", "close")
          .end(ErrorBody.of("unsupported-http-version", "the request line must name HTTP/1.1 or HTTP/1.0 (in upper case), or use HTTP/2: got "
              + ErrorBody.shown(cause.getMessage())));
    } else if (cause instanceof io.netty.handler.codec.http.TooLongHttpHeaderException) {
      refuse(req, 431, "headers-too-large", "the request headers are above this server's limit (--max-header-size)");
    } else if (cause instanceof io.netty.handler.codec.http.TooLongHttpLineException) {
      refuse(req, 414, "uri-too-long", "the request line is above this server's limit of " + MAX_REQUEST_LINE_BYTES + " bytes");
    } else {
      // a header with a control character, a malformed request line or chunk: Vert.x's default answers 400 with no
      // body; a device's developer gets told what was wrong
      refuse(req, 400, "bad-request", "the request is not valid HTTP/1.1"
          + (cause == null || cause.getMessage() == null ? "" : ": " + ErrorBody.shown(cause.getMessage())));
    }
  }
}
