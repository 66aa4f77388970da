package dev.updraft.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The header timeout on a Netty channel with a frozen clock: it runs out a timeout after the connection was
 * accepted, or after the first bytes that follow a complete request, and never while requests keep coming,
 * however long the connection lives (the deadline moves; the timer is not re-made per request).
 */
class HeaderTimeoutTest {
  private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(2);

  private Counter timeouts;
  private EmbeddedChannel ch;
  private HeaderTimeout h;

  @BeforeEach
  void setUp() {
    timeouts = Counter.builder("t").register(new SimpleMeterRegistry());
    ch = new EmbeddedChannel();
    ch.freezeTime();
    h = new HeaderTimeout(TIMEOUT, timeouts, HeaderTimeout.answer("the edge"));
    ch.pipeline().addLast(h); // the connection is accepted: the first head is due from now
  }

  private void advance(long nanos) {
    ch.advanceTimeBy(nanos, TimeUnit.NANOSECONDS);
    ch.runScheduledPendingTasks();
  }

  private void bytesArrive() {
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'G'}));
  }

  /** One request: its bytes arrive, the decoder reports its head and its end. */
  private void request() {
    bytesArrive();
    h.headDecoded();
    h.requestDecoded();
  }

  @Test
  void aConnectionThatSendsNoHeadGets408AtTheTimeoutAndIsClosed() {
    advance(TIMEOUT - 1);
    assertThat(ch.isOpen()).isTrue();
    advance(1);
    assertThat(ch.isOpen()).isFalse();
    ByteBuf out = ch.readOutbound();
    assertThat(out.toString(StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 408 Request Timeout\r\n")
        .contains("\"code\":\"request-timeout\"");
    assertThat(timeouts.count()).isEqualTo(1.0);
  }

  @Test
  void requestsThatKeepComingNeverTimeOutHoweverLongTheConnectionLives() {
    for (int i = 0; i < 10_000; i++) {
      request();
      advance(TIMEOUT / 100);
    }
    assertThat(ch.isOpen()).isTrue();
    assertThat(timeouts.count()).isZero();
    // at most one timer pending, whatever the number of requests
    assertThat(ch.hasPendingTasks()).isFalse();
  }

  @Test
  void aHeadDribbledAfterAnAnswerIsCutATimeoutAfterItsFirstBytesWithout408() {
    request(); // answered
    advance(TIMEOUT / 2);
    bytesArrive(); // the next request starts but its head never completes
    advance(TIMEOUT / 2); // the first head's timer comes due: the deadline has moved, nothing happens
    assertThat(ch.isOpen()).isTrue();
    advance(TIMEOUT / 2 - 1);
    assertThat(ch.isOpen()).isTrue();
    advance(1);
    assertThat(ch.isOpen()).isFalse();
    Object written = ch.readOutbound();
    assertThat(written).as("no bytes after an earlier answer").isNull();
    assertThat(timeouts.count()).isEqualTo(1.0);
  }

  @Test
  void aHeadThatCompletesInTimeStopsTheClockUntilTheNextRequestStarts() {
    advance(TIMEOUT - 1);
    bytesArrive();
    h.headDecoded(); // a slow body is not the header timeout's business
    advance(10 * TIMEOUT);
    assertThat(ch.isOpen()).isTrue();
    h.requestDecoded();
    advance(10 * TIMEOUT); // idle between requests: the idle timeout's business
    assertThat(ch.isOpen()).isTrue();
    bytesArrive();
    advance(TIMEOUT);
    assertThat(ch.isOpen()).isFalse();
    assertThat(timeouts.count()).isEqualTo(1.0);
  }
}
