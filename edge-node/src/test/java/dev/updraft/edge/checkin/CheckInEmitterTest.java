package dev.updraft.edge.checkin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The bounded hand-off, with an in-memory sink (pure logic; the Kafka side is covered by ITs). */
class CheckInEmitterTest {

  private static CheckIn checkIn(String id) {
    return CheckIn.builder()
        .checkInId(id)
        .appId("app")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId("c")
        .outcome(CheckIn.OUTCOME_UPDATE)
        .reason(CheckIn.REASON_NEW_UPDATE)
        .branch("main")
        .servedUpdateId("u")
        .servedGroupId("g")
        .edgeId("edge")
        .build();
  }

  /** A sink whose send blocks until released, like a producer with a full buffer. */
  private static final class BlockingSink implements Sink {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<String> sent = new CopyOnWriteArrayList<>();
    List<Consumer<Exception>> deliveries;

    @Override
    public void deliveries(List<Consumer<Exception>> byLane) {
      deliveries = byLane;
    }

    @Override
    public void send(CheckIn c, int lane) {
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      sent.add(lane == CheckInEmitter.WARMUP ? "warm:" + c.checkInId() : c.checkInId());
      deliveries.get(lane).accept(null);
    }

    @Override
    public void close(Duration timeout) {}
  }

  @Test
  void warmUpCheckInsAreSentMarkedAfterTheDevicesOnesAndCountedApart() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BlockingSink sink = new BlockingSink();
    CheckInEmitter e = new CheckInEmitter(sink, 2, registry);
    e.start();
    assertThat(e.offer(checkIn("warm-0"), CheckInEmitter.WARMUP)).isTrue();
    assertThat(sink.entered.await(10, TimeUnit.SECONDS)).isTrue(); // the sender now blocks on "warm-0"
    assertThat(e.offer(checkIn("warm-1"), CheckInEmitter.WARMUP)).isTrue();
    assertThat(e.offer(checkIn("warm-2"), CheckInEmitter.WARMUP)).isTrue();
    assertThat(e.offer(checkIn("warm-3"), CheckInEmitter.WARMUP)).as("bounded like the devices' queue").isFalse();
    assertThat(e.offer(checkIn("real"), CheckInEmitter.DEVICE)).isTrue();
    assertThat(e.queued()).as("warm-up check-ins are not in the devices' queue").isEqualTo(1);

    sink.release.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (sink.sent.size() < 4 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(sink.sent).as("a device's check-in waiting goes before the warm-up's")
        .containsExactly("warm:warm-0", "real", "warm:warm-1", "warm:warm-2");
    assertThat(e.warmupSent()).isEqualTo(3);
    assertThat(registry.get("updraft.edge.checkins.sent").counter().count()).as("only the device's").isEqualTo(1.0);
    e.close(Duration.ofSeconds(5));
    assertThat(e.offer(checkIn("late"), CheckInEmitter.WARMUP)).as("closed").isFalse();
  }

  @Test
  void fullQueueDropsAndCountsWithoutWaiting() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BlockingSink sink = new BlockingSink();
    CheckInEmitter e = new CheckInEmitter(sink, 4, registry);
    e.start();
    assertThat(e.offer(checkIn("first"), CheckInEmitter.DEVICE)).isTrue();
    assertThat(sink.entered.await(10, TimeUnit.SECONDS)).isTrue(); // the sender now blocks on "first"
    assertThat(e.unacknowledged()).as("\"first\" is with the producer").isEqualTo(1);

    int accepted = 0;
    for (int i = 0; i < 20; i++) {
      accepted += e.offer(checkIn("c" + i), CheckInEmitter.DEVICE) ? 1 : 0; // returns at once even though the sender is stuck
    }
    assertThat(accepted).isEqualTo(4);
    assertThat(e.queued()).isEqualTo(4);
    assertThat(registry.get("updraft.edge.checkins.dropped").tag("reason", "queue-full").counter().count()).isEqualTo(16);

    sink.release.countDown();
    e.close(Duration.ofSeconds(10));
    assertThat(sink.sent).containsExactly("first", "c0", "c1", "c2", "c3");
    assertThat(registry.get("updraft.edge.checkins.sent").counter().count()).isEqualTo(5);
    assertThat(e.queued()).isZero();
    assertThat(e.unacknowledged()).isZero();
  }

  @Test
  void checkInsWithTheProducerCountAsUnacknowledgedUntilTheirDeliveryIsReported() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<Consumer<Exception>> pending = new CopyOnWriteArrayList<>();
    Sink deferred = new Sink() { // like a producer: accepts at once, reports delivery later
      List<Consumer<Exception>> deliveries;

      @Override
      public void deliveries(List<Consumer<Exception>> byLane) {
        deliveries = byLane;
      }

      @Override
      public void send(CheckIn c, int lane) {
        pending.add(deliveries.get(lane));
      }

      @Override
      public void close(Duration timeout) {}
    };
    CheckInEmitter e = new CheckInEmitter(deferred, 10, registry);
    e.start();
    for (int i = 0; i < 3; i++) {
      assertThat(e.offer(checkIn("c" + i), CheckInEmitter.DEVICE)).isTrue();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (pending.size() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(e.queued()).as("the queue is empty").isZero();
    assertThat(e.unacknowledged()).as("yet the edge still holds all three").isEqualTo(3);
    assertThat(registry.get("updraft.edge.checkins.unacknowledged").gauge().value()).isEqualTo(3.0);
    pending.get(0).accept(null);
    pending.get(1).accept(new IllegalStateException("broker gone"));
    assertThat(e.unacknowledged()).isEqualTo(1);
    pending.get(2).accept(null);
    assertThat(e.unacknowledged()).isZero();
    e.close(Duration.ofSeconds(1));
  }

  @Test
  void failedDeliveriesAreCountedAsDropped() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Sink failing = new Sink() {
      List<Consumer<Exception>> deliveries;

      @Override
      public void deliveries(List<Consumer<Exception>> byLane) {
        deliveries = byLane;
      }

      @Override
      public void send(CheckIn c, int lane) {
        deliveries.get(lane).accept(new IllegalStateException("broker gone"));
      }

      @Override
      public void close(Duration timeout) {}
    };
    CheckInEmitter e = new CheckInEmitter(failing, 10, registry);
    e.start();
    e.offer(checkIn("a"), CheckInEmitter.DEVICE);
    e.offer(checkIn("b"), CheckInEmitter.DEVICE);
    e.close(Duration.ofSeconds(10));
    assertThat(registry.get("updraft.edge.checkins.dropped").tag("reason", "delivery-failed").counter().count()).isEqualTo(2);
    assertThat(registry.get("updraft.edge.checkins.sent").counter().count()).isZero();
  }

  @Test
  void offersAfterCloseAreDroppedAsShutdown() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CheckInEmitter e = new CheckInEmitter(new BlockingSink(), 10, registry);
    e.close(Duration.ofMillis(10));
    assertThat(e.offer(checkIn("late"), CheckInEmitter.DEVICE)).isFalse();
    assertThat(registry.get("updraft.edge.checkins.dropped").tag("reason", "shutdown").counter().count()).isEqualTo(1);
  }
}
