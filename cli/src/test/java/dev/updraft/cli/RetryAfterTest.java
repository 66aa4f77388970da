package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A busy server's {@code Retry-After} is honoured by the retrying calls: the CLI waits at least what the server
 * asks (seconds or an HTTP date), never less than its own backoff, and ends at once with the server's wait when
 * that is longer than it is willing to wait, instead of hammering a rate-limited control plane.
 */
class RetryAfterTest {
  HttpServer server;
  final AtomicInteger busyLeft = new AtomicInteger();
  final AtomicInteger requests = new AtomicInteger();
  volatile String retryAfter;
  final List<Long> waits = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/apps/demo/updates", x -> {
      x.getRequestBody().readAllBytes();
      requests.incrementAndGet();
      boolean busy = busyLeft.getAndDecrement() > 0;
      byte[] b = (busy ? "{\"error\":{\"code\":\"rate-limited\",\"message\":\"too many publishes\"}}" : "{\"groupId\":\"g1\"}")
          .getBytes(StandardCharsets.UTF_8);
      if (busy && retryAfter != null) {
        x.getResponseHeaders().add("Retry-After", retryAfter);
      }
      x.getResponseHeaders().add("Content-Type", "application/json");
      x.sendResponseHeaders(busy ? 429 : 201, b.length);
      x.getResponseBody().write(b);
      x.close();
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private Api api() throws CliException {
    return new Api("http://127.0.0.1:" + server.getAddress().getPort(), "t", waits::add, null);
  }

  @Test
  void waitsAsLongAsTheServerAsksInSecondsWhenThatIsLongerThanItsOwnBackoff() throws Exception {
    busyLeft.set(2);
    retryAfter = "7";
    assertThat(api().postRetrying("/v1/apps/demo/updates", Map.of(), Map.of()).get("groupId").asText()).isEqualTo("g1");
    assertThat(waits).containsExactly(7_000L, 7_000L);
    assertThat(requests.get()).isEqualTo(3);
  }

  @Test
  void keepsItsOwnBackoffWhenTheServerAsksForLessOrSaysNothingReadable() throws Exception {
    busyLeft.set(3);
    retryAfter = "0";
    api().postRetrying("/v1/apps/demo/updates", Map.of(), Map.of());
    assertThat(waits).containsExactly(500L, 1_000L, 2_000L);
    waits.clear();
    busyLeft.set(1);
    retryAfter = "soon";
    api().postRetrying("/v1/apps/demo/updates", Map.of(), Map.of());
    assertThat(waits).containsExactly(500L);
  }

  @Test
  void readsAnHttpDate() {
    long now = ZonedDateTime.of(2026, 12, 7, 6, 0, 0, 0, ZoneOffset.UTC).toInstant().toEpochMilli();
    String in30s = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.of(2026, 12, 7, 6, 0, 30, 0, ZoneOffset.UTC));
    assertThat(in30s).isEqualTo("Mon, 7 Dec 2026 06:00:30 GMT");
    assertThat(Api.retryAfterMillis("Mon, 07 Dec 2026 06:00:30 GMT", now)).isEqualTo(30_000L);
    assertThat(Api.retryAfterMillis("Mon, 07 Dec 2026 05:59:00 GMT", now)).as("a date in the past: no wait").isZero();
    assertThat(Api.retryAfterMillis(null, now)).isEqualTo(-1);
  }

  @Test
  void endsAtOnceNamingTheServersWaitWhenItIsLongerThanAMinute() {
    busyLeft.set(10);
    retryAfter = "120";
    assertThatThrownBy(() -> api().postRetrying("/v1/apps/demo/updates", Map.of(), Map.of()))
        .isInstanceOf(CliException.class)
        .hasMessage("too many publishes (the server asks to retry in 120 s, longer than the 60 s the CLI waits: run it again then)");
    assertThat(requests.get()).as("one request, no retry into the rate limit").isEqualTo(1);
    assertThat(waits).isEmpty();
  }
}
