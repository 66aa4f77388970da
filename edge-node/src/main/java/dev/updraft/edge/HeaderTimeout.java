package dev.updraft.edge;

import io.micrometer.core.instrument.Counter;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
 * and stops when the head is decoded ({@link HttpGuard} reports it). When it runs out the connection is
 * closed, after a {@code 408} with a JSON error if it had no request yet, and counted
 * ({@code updraft_edge_header_timeouts_total}). Time between requests on a kept-alive connection is the
 * idle timeout's business. One instance per connection, confined to its event loop.
 *
 * <p>The clock is a deadline, not a timer per request: arming sets the deadline and schedules a timer only
 * when none is pending; a timer that fires before the deadline (armed for an earlier head) re-schedules
 * itself for the rest, and one that fires after the head was decoded just ends. So a kept-alive connection
 * at thousands of requests a second schedules about one timer per timeout period instead of scheduling
 * and cancelling one per request (a scheduled-task queue insert and removal on the hot path).
 */
final class HeaderTimeout extends ChannelInboundHandlerAdapter {
  static final String NAME = "updraft-header-timeout";
  private static final String TIMEOUT_BODY =
      "{\"error\":{\"code\":\"request-timeout\",\"message\":\"no complete request head arrived within the edge's"
          + " --header-timeout; send the request line and headers at once\"}}";
  private static final byte[] REQUEST_TIMEOUT =
      ("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncache-control: private, max-age=0\r\n"
              + "content-length: " + TIMEOUT_BODY.length() + "\r\nconnection: close\r\n\r\n" + TIMEOUT_BODY)
          .getBytes(StandardCharsets.US_ASCII);

  private enum State {
    HEAD,
    BODY,
    BETWEEN
  }

  private final long timeoutNanos;
  private final Counter timeouts;
  private State state = State.HEAD;
  private boolean answeredBefore;
  /** The pending timer, or null; it may be due before {@link #deadline} (armed for an earlier head). */
  private ScheduledFuture<?> timer;
  /** When the head being waited for is late, in the executor's clock ({@link #now}). */
  private long deadline;
  private ChannelHandlerContext ctx;

  HeaderTimeout(long timeoutNanos, Counter timeouts) {
    this.timeoutNanos = timeoutNanos;
    this.timeouts = timeouts;
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
  void headDecoded() {
    state = State.BODY;
  }

  /** The decoder produced the end of a request. */
  void requestDecoded() {
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
      ctx.writeAndFlush(Unpooled.wrappedBuffer(REQUEST_TIMEOUT)).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
