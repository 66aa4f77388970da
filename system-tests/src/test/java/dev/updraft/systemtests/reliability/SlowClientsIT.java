package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow clients against an edge with {@code --header-timeout 1s --idle-timeout 2s}: a connection that sends
 * nothing gets 408 and is closed at the header timeout; a kept-alive connection idle after an answer is
 * closed at the idle timeout; a request head dribbled after an earlier answer is cut at the header timeout;
 * and a slowloris attack (300 connections at all times, each sending a request head a byte every half
 * second, reopened as soon as the edge closes one) holds no connection past the header timeout while a
 * normal device keeps getting every answer. Every close must come at its configured timeout: not before it,
 * and not later than {@link #MARGIN} after it (scheduling on a busy machine; an edge enforcing a timeout twice
 * as long fails). The control plane, given the same two timeouts, holds its clients to them in the same way.
 */
@ExtendWith(RealInfrastructure.class)
class SlowClientsIT {
  static final String APP = "slow";
  static final Duration HEADER_TIMEOUT = Duration.ofSeconds(1);
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2); // whole seconds (the server takes seconds), above the header timeout
  /**
   * How late after its timeout a connection may be closed: the edge's timer and this test's reading run on a
   * shared two-core machine (closes came 1-30 ms late on an idle one). Half the header timeout: a timeout
   * enforced at 1.5 times its value fails.
   */
  static final Duration MARGIN = Duration.ofMillis(500);
  /** A connection still open this long after its start was not cut at either timeout. */
  static final Duration HEADER_BOUND = HEADER_TIMEOUT.plus(MARGIN);
  static final Duration IDLE_BOUND = IDLE_TIMEOUT.plus(MARGIN);
  static final int ATTACK_CONNECTIONS = 300;
  static final Duration ATTACK = Duration.ofSeconds(4);

  static Vertx vertx;
  static ControlPlane cp;
  static EdgeNode edge;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    vertx = Vertx.vertx();
    ControlPlane setup = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir);
    Publishing.appWithUpdate("http://127.0.0.1:" + setup.port(), APP, true, "main");
    Services.await(setup.close());
    // the same control plane again with the timeouts under test (its idle timeout also runs while a command waits
    // for Kafka, which the setup's commands may do for longer than 2 s on a busy machine)
    cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir,
        "header-timeout", HEADER_TIMEOUT.toMillis() + "ms", "idle-timeout", IDLE_TIMEOUT.toSeconds() + "s");
    edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "slow-edge",
        "header-timeout", HEADER_TIMEOUT.toMillis() + "ms", "idle-timeout", IDLE_TIMEOUT.toSeconds() + "s");
  }

  @AfterAll
  static void stop() {
    Services.await(edge.close());
    Services.await(cp.close());
    Services.await(vertx.close());
  }

  /** Reads until the server closes (at most {@code bound}); returns what it sent and the milliseconds since {@code t0}. */
  private static Map.Entry<String, Long> untilClosed(Socket s, long t0, Duration bound) throws IOException {
    s.setSoTimeout((int) bound.toMillis());
    InputStream in = s.getInputStream();
    byte[] all;
    try {
      all = in.readAllBytes();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("connection still open " + bound.toMillis() + " ms later");
    }
    return Map.entry(new String(all, StandardCharsets.ISO_8859_1), (System.nanoTime() - t0) / 1_000_000);
  }

  @Test
  void aConnectionThatSendsNothingGets408AtTheHeaderTimeout() throws IOException {
    try (Socket s = new Socket("127.0.0.1", edge.port())) {
      long t0 = System.nanoTime();
      Map.Entry<String, Long> r = untilClosed(s, t0, HEADER_BOUND);
      assertThat(r.getKey()).startsWith("HTTP/1.1 408 ");
      assertThat(r.getKey()).as("a JSON error naming the problem").contains("content-type: application/json")
          .contains("\"code\":\"request-timeout\"", "--header-timeout");
      assertThat(r.getValue()).as("closed at the header timeout, not before, not later than the margin")
          .isBetween(HEADER_TIMEOUT.toMillis() - 50, HEADER_BOUND.toMillis());
      System.out.printf("slow clients: a silent connection got 408 and was closed after %d ms (header timeout %d ms)%n",
          r.getValue(), HEADER_TIMEOUT.toMillis());
    }
  }

  @Test
  void aKeptAliveConnectionIsClosedAtTheIdleTimeoutNotTheHeaderTimeout() throws IOException {
    try (RawHttp c = new RawHttp(edge.port(), (int) IDLE_BOUND.toMillis())) {
      assertThat(c.exchange(Publishing.deviceRequest(APP, "main", UUID.randomUUID().toString())).status()).isEqualTo(200);
      long t0 = System.nanoTime();
      assertThat(c.read(false)).as("nothing more, then the end of the connection (within %d ms)", IDLE_BOUND.toMillis()).isNull();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(ms).as("idle for the idle timeout, not cut at the header timeout, nor later than the margin")
          .isBetween(IDLE_TIMEOUT.toMillis() - 50, IDLE_BOUND.toMillis());
      System.out.printf("slow clients: an idle kept-alive connection was closed after %d ms (idle timeout %d ms)%n", ms, IDLE_TIMEOUT.toMillis());
    }
  }

  @Test
  void aSecondRequestDribbledAfterAnAnswerIsCutAtTheHeaderTimeout() throws Exception {
    try (RawHttp c = new RawHttp(edge.port(), (int) HEADER_BOUND.toMillis())) {
      assertThat(c.exchange(Publishing.deviceRequest(APP, "main", UUID.randomUUID().toString())).status()).isEqualTo(200);
      byte[] next = Publishing.deviceRequest(APP, "main", UUID.randomUUID().toString());
      InputStream raw = c.socket().getInputStream(); // the answer above was read whole: nothing is buffered
      long t0 = System.nanoTime();
      int sent = 0;
      long closedMs = -1;
      try {
        // a byte every 250 ms (the slow client's pace), watching for the close in between
        while (sent < next.length && System.nanoTime() - t0 < HEADER_BOUND.toNanos()) {
          c.write(new byte[] {next[sent]});
          c.flush();
          sent++;
          c.socket().setSoTimeout(250);
          try {
            int b = raw.read();
            assertThat(b).as("no answer to a head that never completed").isEqualTo(-1);
            closedMs = (System.nanoTime() - t0) / 1_000_000;
            break;
          } catch (SocketTimeoutException stillOpen) {
            // not closed yet: the next byte
          }
        }
      } catch (IOException e) {
        closedMs = (System.nanoTime() - t0) / 1_000_000; // the edge reset the connection: it is closed
      }
      assertThat(sent).as("bytes of the head accepted before the cut").isLessThan(next.length);
      assertThat(closedMs).as("closed at the header timeout, counted from the head's first byte, not later than the margin")
          .isBetween(HEADER_TIMEOUT.toMillis() - 50, HEADER_BOUND.toMillis());
      System.out.printf("slow clients: a request head dribbled after an answer was cut after %d of %d bytes, %d ms (header timeout %d ms)%n",
          sent, next.length, closedMs, HEADER_TIMEOUT.toMillis());
    }
  }

  @Test
  void theControlPlaneGives408ToAConnectionThatSendsNothingAtItsHeaderTimeout() throws IOException {
    try (Socket s = new Socket("127.0.0.1", cp.port())) {
      long t0 = System.nanoTime();
      Map.Entry<String, Long> r = untilClosed(s, t0, HEADER_BOUND);
      assertThat(r.getKey()).startsWith("HTTP/1.1 408 ").contains("\"code\":\"request-timeout\"", "the control plane's --header-timeout");
      assertThat(r.getValue()).as("closed at the header timeout, not before, not later than the margin")
          .isBetween(HEADER_TIMEOUT.toMillis() - 50, HEADER_BOUND.toMillis());
      System.out.printf("slow clients: a silent connection to the control plane got 408 and was closed after %d ms (header timeout %d ms)%n",
          r.getValue(), HEADER_TIMEOUT.toMillis());
    }
  }

  @Test
  void theControlPlaneCutsARequestHeadSentAByteAtATimeAtItsHeaderTimeout() throws IOException {
    byte[] head = ("GET /v1/apps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + Services.ADMIN + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
    try (Socket s = new Socket("127.0.0.1", cp.port())) {
      InputStream in = s.getInputStream();
      long t0 = System.nanoTime();
      int sent = 0;
      long closedMs = -1;
      StringBuilder answer = new StringBuilder();
      try {
        // a byte every 250 ms (the slowloris pace of a byte a second, faster), watching for the close in between
        while (sent < head.length && System.nanoTime() - t0 < HEADER_BOUND.toNanos()) {
          s.getOutputStream().write(head[sent]);
          s.getOutputStream().flush();
          sent++;
          s.setSoTimeout(250);
          try {
            byte[] got = in.readAllBytes();
            answer.append(new String(got, StandardCharsets.ISO_8859_1));
            closedMs = (System.nanoTime() - t0) / 1_000_000;
            break;
          } catch (SocketTimeoutException stillOpen) {
            // not closed yet: the next byte
          }
        }
      } catch (IOException reset) {
        closedMs = (System.nanoTime() - t0) / 1_000_000; // the control plane reset the connection: it is closed
      }
      assertThat(sent).as("bytes of the head accepted before the cut").isLessThan(head.length);
      assertThat(answer.toString()).as("nothing but the 408").satisfiesAnyOf(a -> assertThat(a).isEmpty(), a -> assertThat(a).startsWith("HTTP/1.1 408 "));
      assertThat(closedMs).as("closed at the header timeout, not later than the margin")
          .isBetween(HEADER_TIMEOUT.toMillis() - 50, HEADER_BOUND.toMillis());
      System.out.printf("slow clients: a request head dribbled to the control plane was cut after %d of %d bytes, %d ms (header timeout %d ms)%n",
          sent, head.length, closedMs, HEADER_TIMEOUT.toMillis());
    }
  }

  @Test
  void theControlPlaneClosesAKeptAliveConnectionAtItsIdleTimeout() throws IOException {
    byte[] request = ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    try (RawHttp c = new RawHttp(cp.port(), (int) IDLE_BOUND.toMillis())) {
      long t0 = System.nanoTime(); // before the request: the idle time starts with the answer's last byte, after this
      assertThat(c.exchange(request).status()).isEqualTo(200);
      assertThat(c.read(false)).as("nothing more, then the end of the connection (within %d ms)", IDLE_BOUND.toMillis()).isNull();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(ms).as("idle for the idle timeout, not cut at the header timeout, nor later than the margin")
          .isBetween(IDLE_TIMEOUT.toMillis(), IDLE_BOUND.toMillis());
      System.out.printf("slow clients: an idle kept-alive connection to the control plane was closed after %d ms (idle timeout %d ms)%n",
          ms, IDLE_TIMEOUT.toMillis());
    }
  }

  @Test
  void aSlowlorisAttackHoldsNoConnectionPastTheHeaderTimeoutAndDevicesAreStillServed() throws Exception {
    byte[] head = Publishing.deviceRequest(APP, "main", UUID.randomUUID().toString());
    double timeoutsBefore = Metrics.value(Metrics.scrape("http://127.0.0.1:" + edge.port() + "/metrics"), "updraft_edge_header_timeouts_total");
    byte[] good = head.clone();
    EdgeNode e = edge;
    DeviceLoad devices = new DeviceLoad(APP, "main", new IntSupplier[] {e::port}, 1, 50, 10_000,
        r -> r.status() == 200 && r.text().contains("\"id\":") ? null : "not the manifest: " + r.status());
    List<Long> lifetimes = Collections.synchronizedList(new ArrayList<>());
    int opened = 0;
    int maxOpen = 0;
    int gotAnswer = 0;
    long t0 = System.nanoTime();
    try (Selector selector = Selector.open()) {
      Map<SocketChannel, long[]> open = new HashMap<>(); // channel -> {opened at, bytes sent, next byte due}
      ByteBuffer read = ByteBuffer.allocate(4096);
      while (System.nanoTime() - t0 < ATTACK.toNanos()) {
        while (open.size() < ATTACK_CONNECTIONS) {
          SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", edge.port()));
          ch.configureBlocking(false);
          ch.register(selector, SelectionKey.OP_READ);
          long now = System.nanoTime();
          open.put(ch, new long[] {now, 0, now});
          opened++;
        }
        maxOpen = Math.max(maxOpen, open.size());
        long now = System.nanoTime();
        for (Map.Entry<SocketChannel, long[]> c : open.entrySet()) {
          long[] st = c.getValue();
          if (st[2] <= now && st[1] < head.length) {
            try {
              c.getKey().write(ByteBuffer.wrap(head, (int) st[1], 1));
              st[1]++;
            } catch (IOException closed) {
              // seen as the end of the stream below
            }
            st[2] = now + Duration.ofMillis(500).toNanos();
          }
          assertThat(now - st[0]).as("a slowloris connection held past the header timeout and the margin").isLessThan(HEADER_BOUND.toNanos());
        }
        selector.select(50);
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
          SelectionKey k = it.next();
          it.remove();
          SocketChannel ch = (SocketChannel) k.channel();
          read.clear();
          int n;
          try {
            n = ch.read(read);
          } catch (IOException reset) {
            n = -1;
          }
          if (n > 0) {
            gotAnswer++;
          }
          if (n < 0 || n > 0) {
            lifetimes.add((System.nanoTime() - open.remove(ch)[0]) / 1_000_000);
            k.cancel();
            ch.close();
          }
        }
      }
      for (SocketChannel ch : open.keySet()) {
        ch.close();
      }
    } finally {
      devices.close();
    }
    long[] sorted = lifetimes.stream().mapToLong(Long::longValue).sorted().toArray();
    assertThat(sorted).as("connections the edge closed during the attack").isNotEmpty();
    double timeouts = Metrics.value(Metrics.scrape("http://127.0.0.1:" + edge.port() + "/metrics"), "updraft_edge_header_timeouts_total") - timeoutsBefore;
    assertThat(devices.examples).as("device requests failing during the attack").isEmpty();
    assertThat(devices.failures.get() + devices.connectionErrors.get()).isZero();
    assertThat(devices.answered.get()).as("device requests answered during the attack").isPositive();
    assertThat(timeouts).as("header timeouts counted by the edge").isGreaterThanOrEqualTo(sorted.length);
    System.out.printf("slow clients: slowloris with %d connections held at all times (max %d) for %d s: %d opened, %d closed by the"
            + " edge after %d/%d/%d ms (min/median/max; header timeout %d ms; %d with a 408), header timeouts counted %.0f;"
            + " meanwhile a device got %d answers, 0 failed%n",
        ATTACK_CONNECTIONS, maxOpen, ATTACK.toSeconds(), opened, sorted.length, sorted[0], sorted[sorted.length / 2],
        sorted[sorted.length - 1], HEADER_TIMEOUT.toMillis(), gotAnswer, timeouts, devices.answered.get());
    assertThat(sorted[0]).as("the first close: not before the header timeout").isGreaterThanOrEqualTo(HEADER_TIMEOUT.toMillis() - 50);
    assertThat(Arrays.stream(sorted).max().getAsLong()).as("the last close: at the header timeout and the margin")
        .isLessThanOrEqualTo(HEADER_BOUND.toMillis());
  }
}
