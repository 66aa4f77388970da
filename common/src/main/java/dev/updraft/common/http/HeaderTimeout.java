package dev.updraft.common.http;

import io.micrometer.core.instrument.Counter;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Bounds the time a client may take to send a request head ({@code --header-timeout}): a slowloris
 * client that opens connections and sends its headers a byte at a time would otherwise hold each one
 * for as long as every byte comes within the idle timeout. A Netty handler ahead of the HTTP decoder:
 * the clock starts when the connection is accepted and whenever bytes arrive after a complete request,
 * and stops when the head is decoded (a handler just before Vert.x's reports it: {@link #install} puts in
 * {@link HeadWatch}; the edge's own guard does the same). When it runs out the connection is closed, after a
 * {@code 408} with a JSON error if it had no request yet, and counted (the edge's
 * {@code updraft_edge_header_timeouts_total}, the control plane's {@code updraft_control_header_timeouts_total}).
 * Time between requests on a kept-alive connection is the idle timeout's business. One instance per
 * connection, confined to its event loop.
 *
 * <p>The clock is a deadline, not a timer per request: arming sets the deadline and schedules a timer only
 * when none is pending; a timer that fires before the deadline (armed for an earlier head) re-schedules
 * itself for the rest, and one that fires after the head was decoded just ends. So a kept-alive connection
 * at thousands of requests a second schedules about one timer per timeout period instead of scheduling
 * and cancelling one per request (a scheduled-task queue insert and removal on the hot path).
 */
public final class HeaderTimeout extends ChannelInboundHandlerAdapter {
  public static final String NAME = "updraft-header-timeout";
  /** Vert.x's own handler, last in the pipeline, and its HTTP/1 decoder. */
  private static final String VERTX_HANDLER = "handler";
  private static final String DECODER = "httpDecoder";

  private enum State {
    HEAD,
    BODY,
    BETWEEN
  }

  private final long timeoutNanos;
  private final Counter timeouts;
  private final byte[] requestTimeout;
  private State state = State.HEAD;
  private boolean answeredBefore;
  /** The pending timer, or null; it may be due before {@link #deadline} (armed for an earlier head). */
  private ScheduledFuture<?> timer;
  /** When the head being waited for is late, in the executor's clock ({@link #now}). */
  private long deadline;
  private ChannelHandlerContext ctx;

  /**
   * @param requestTimeout the whole answer to a connection that sent no complete head, from {@link #answer}
   *     (made once per server, not per connection)
   */
  public HeaderTimeout(long timeoutNanos, Counter timeouts, byte[] requestTimeout) {
    this.timeoutNanos = timeoutNanos;
    this.timeouts = timeouts;
    this.requestTimeout = requestTimeout;
  }

  /** The 408 answer, with a JSON error naming {@code server} ("the edge", "the control plane") and its flag. */
  public static byte[] answer(String server) {
    String body = "{\"error\":{\"code\":\"request-timeout\",\"message\":\"no complete request head arrived within " + server
        + "'s --header-timeout; send the request line and headers at once\"}}";
    return ("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncache-control: private, max-age=0\r\n"
            + "content-length: " + body.length() + "\r\nconnection: close\r\n\r\n" + body)
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Puts a header timeout and its {@link HeadWatch} into the HTTP/1 pipeline of {@code connection} (from the
   * server's connection handler, which runs when the connection is accepted; the server must not offer h2c,
   * whose detection would create the connection only after the first request head). Through Vert.x's
   * {@link ConnectionBase} (an implementation class): if a Vert.x upgrade renames its handlers, nothing is
   * installed and the slow-client tests fail, rather than every connection.
   */
  public static void install(HttpConnection connection, long timeoutNanos, Counter timeouts, byte[] requestTimeout) {
    ChannelPipeline p = pipeline(connection);
    if (p != null) {
      HeaderTimeout timeout = new HeaderTimeout(timeoutNanos, timeouts, requestTimeout);
      p.addBefore(DECODER, NAME, timeout);
      p.addBefore(VERTX_HANDLER, HeadWatch.NAME, new HeadWatch(timeout));
    }
  }

  /** The connection's HTTP/1 pipeline with Vert.x's decoder and handler and no header timeout yet, else null. */
  public static ChannelPipeline pipeline(HttpConnection connection) {
    if (!(connection instanceof ConnectionBase)) {
      return null;
    }
    ChannelPipeline p = ((ConnectionBase) connection).channel().pipeline();
    return p.get(VERTX_HANDLER) != null && p.get(DECODER) != null && p.get(NAME) == null ? p : null;
  }

  /** The names to put a decoder-side handler before ({@code DECODER}) and a request-side one ({@code VERTX}). */
  public static String decoderName() {
    return DECODER;
  }

  public static String vertxHandlerName() {
    return VERTX_HANDLER;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext c) {
    ctx = c;
    arm(); // added when the connection is accepted: the first head is due from now
  }

  @Override
  public void channelRead(ChannelHandlerContext c, Object msg) {
    if (state == State.BETWEEN) {
      state = State.HEAD;
      arm();
    }
    c.fireChannelRead(msg);
  }

  /** The decoder produced a request head (a pending timer stays: it finds the state changed and ends). */
  public void headDecoded() {
    state = State.BODY;
  }

  /** The decoder produced the end of a request. */
  public void requestDecoded() {
    state = State.BETWEEN;
    answeredBefore = true;
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) {
    cancel();
    c.fireChannelInactive();
  }

  private void arm() {
    deadline = now() + timeoutNanos;
    if (timer == null) {
      timer = ctx.executor().schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** The executor's clock (the one its scheduled tasks run by), else {@link System#nanoTime}. */
  private long now() {
    EventExecutor e = ctx.executor();
    return e instanceof AbstractScheduledEventExecutor ? ((AbstractScheduledEventExecutor) e).ticker().nanoTime()
        : System.nanoTime();
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void expire() {
    timer = null;
    if (state != State.HEAD || !ctx.channel().isActive()) {
      return;
    }
    long left = deadline - now();
    if (left > 0) {
      // armed for an earlier head; the one now awaited was armed later
      timer = ctx.executor().schedule(this::expire, left, TimeUnit.NANOSECONDS);
      return;
    }
    timeouts.increment();
    if (answeredBefore) {
      ctx.close(); // an answer to an earlier request may still be on its way: no bytes of ours in between
    } else {
      ctx.writeAndFlush(Unpooled.wrappedBuffer(requestTimeout)).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
