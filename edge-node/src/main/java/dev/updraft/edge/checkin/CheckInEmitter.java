package dev.updraft.edge.checkin;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.events.CheckIn;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded, non-blocking path from a device request to {@code updraft.telemetry}. Event loops call
 * {@link #offer}, which never waits: it enqueues, or drops and counts when {@code capacity} check-ins are
 * already waiting. One sender thread takes them off the queue and hands them to the Kafka producer (where
 * it, not an event loop, may block when the producer's buffer is full).
 *
 * <p>Why a lock-free queue with a counted bound rather than an {@code ArrayBlockingQueue}: the event loops
 * offer at request rate and must never contend on a lock or pay for waking the sender; the sender parks
 * for 10 ms when the queue is empty (20 ms after a quiet second) instead of being signalled, and is woken
 * early only by the offer that fills a lane's queue to half its capacity. The producer lingers 100 ms per
 * batch anyway, so a check-in waiting up to 10 ms more in the queue changes no batch; a sender woken every
 * millisecond cost more CPU than the check-ins it sent (a profile of the pinned edge at 2,500 req/s: the
 * sender thread at 6 us per request, almost all of it waking up).
 *
 * <p>Metrics: {@code updraft_edge_checkins_sent_total} (acknowledged by Kafka),
 * {@code updraft_edge_checkins_dropped_total{reason=queue-full|delivery-failed|shutdown}},
 * {@code updraft_edge_checkins_queued} (waiting for the sender), {@code updraft_edge_checkins_unacknowledged}
 * (handed to the producer, neither acknowledged nor failed yet: queued plus this is what the edge still
 * holds). Thread-safe.
 */
public final class CheckInEmitter {
  private static final Logger LOG = LoggerFactory.getLogger(CheckInEmitter.class);
  private static final long PARK_BUSY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long PARK_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  /** Empty polls (of {@link #PARK_BUSY_NANOS}) after which the sender parks for {@link #PARK_IDLE_NANOS}: a quiet second. */
  private static final int BUSY_POLLS = (int) (TimeUnit.SECONDS.toNanos(1) / PARK_BUSY_NANOS);

  private final Sink sink;
  private final int capacity;
  /** The count of a lane's queue at which the offer wakes the sender (half of {@link #capacity}, at least 1). */
  private final int wakeAt;
  /**
   * A device's check-ins ({@link #DEVICE}) and the edge's warm-up's ({@link #WARMUP}): two lanes chosen by index,
   * not by a branch, so that the code the warm-up compiles is the code devices run (a branch only the warm-up
   * took was compiled as never taken the other way, and the first device's check-in deoptimised it).
   */
  public static final int DEVICE = 0;
  public static final int WARMUP = 1;
  private static final int LANES = 2;

  private final AtomicLong warmSent = new AtomicLong();
  /** Per lane, the check-ins waiting for the sender and their count (bounded by {@code capacity}). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private final ConcurrentLinkedQueue<CheckIn>[] queues = new ConcurrentLinkedQueue[] {new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>()};
  private final AtomicInteger[] sizes = {new AtomicInteger(), new AtomicInteger()};
  /** Per lane: whether a check-in taken counts in {@link #taken} (1) or not (0). */
  private static final int[] COUNTED = {1, 0};
  /** Per lane: the drop counters; the warm-up's on a registry nobody reads. */
  private final Counter[] droppedFullBy;
  private final Counter[] droppedShutdownBy;
  private final Thread sender;
  private volatile boolean closed;
  /** Check-ins the sender has taken off the queue (written by the sender only). */
  private volatile long taken;

  private final Counter sent;
  private final Counter droppedFailed;
  private long failuresLogged;
  private final AtomicInteger warmFailuresLogged = new AtomicInteger();

  /**
   * An emitter sending to Kafka topic {@code topic}.
   *
   * @param capacity check-ins that may wait in the queue
   * @param producerBuffer bytes the Kafka producer may hold (sent or waiting for the broker)
   * @param compact write the compact form ({@code CheckInBinary}) rather than JSON
   */
  public static CheckInEmitter kafka(String bootstrap, KafkaClientConfig kafka, String topic, String clientId, int capacity, long producerBuffer,
      boolean compact, MeterRegistry registry) {
    return new CheckInEmitter(new KafkaSink(bootstrap, kafka, topic, clientId, producerBuffer, compact), capacity, registry);
  }

  CheckInEmitter(Sink sink, int capacity, MeterRegistry registry) {
    if (capacity < 1) {
      throw new IllegalArgumentException("check-in capacity must be >= 1: capacity=" + capacity);
    }
    this.sink = sink;
    this.capacity = capacity;
    this.wakeAt = Math.max(1, capacity / 2);
    sent = Counter.builder("updraft.edge.checkins.sent").description("Check-ins acknowledged by Kafka").register(registry);
    droppedFailed = dropped(registry, "delivery-failed");
    MeterRegistry unread = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    droppedFullBy = new Counter[] {dropped(registry, "queue-full"), dropped(unread, "queue-full")};
    droppedShutdownBy = new Counter[] {dropped(registry, "shutdown"), dropped(unread, "shutdown")};
    Gauge.builder("updraft.edge.checkins.queued", sizes[DEVICE], AtomicInteger::get)
        .description("Check-ins waiting for the sender thread")
        .register(registry);
    Gauge.builder("updraft.edge.checkins.unacknowledged", this, CheckInEmitter::unacknowledged)
        .description("Check-ins handed to the Kafka producer and neither acknowledged nor failed yet")
        .register(registry);
    sender = new Thread(this::run, "updraft-edge-checkins");
    sender.setDaemon(true);
  }

  private static Counter dropped(MeterRegistry registry, String reason) {
    return Counter.builder("updraft.edge.checkins.dropped")
        .description("Check-ins lost, by reason")
        .tag("reason", reason)
        .register(registry);
  }

  public void start() {
    sender.start();
  }

  /** Warm-up check-ins acknowledged by Kafka. */
  public long warmupSent() {
    return warmSent.get();
  }

  /**
   * Queues a check-in in {@code lane} without waiting: {@link #DEVICE}'s, or {@link #WARMUP}'s (the edge's
   * warm-up: built as for a device's request and sent like one, marked as a warm-up ({@code
   * Topics.WARMUP_HEADER}; ingesters skip it), so that the sender thread, the encoder and the producer have run
   * before the first device's check-in; counted apart, {@link #warmupSent}; a device's check-in waiting goes
   * first). Returns false (and counts it dropped, a warm-up's where nobody reads) when the lane's queue is full
   * or the emitter is closed.
   */
  public boolean offer(CheckIn c, int lane) {
    if (closed) {
      droppedShutdownBy[lane].increment();
      return false;
    }
    int waiting = reserve(sizes[lane]);
    if (waiting < 0) {
      droppedFullBy[lane].increment();
      return false;
    }
    queues[lane].offer(c);
    if (waiting == wakeAt) {
      LockSupport.unpark(sender); // half full: the sender takes them now rather than at the end of its park
    }
    return true;
  }

  /** Takes a place of {@code capacity} in a queue's count: the count with it, or -1 when it is full. */
  private int reserve(AtomicInteger waiting) {
    int n = waiting.incrementAndGet();
    if (n > capacity) {
      waiting.decrementAndGet();
      return -1;
    }
    return n;
  }

  /** Check-ins waiting for the sender. */
  public int queued() {
    return sizes[DEVICE].get();
  }

  /** Check-ins handed to the producer whose delivery has not been reported yet. */
  public long unacknowledged() {
    return taken - (long) sent.count() - (long) droppedFailed.count();
  }

  private void run() {
    @SuppressWarnings({"unchecked", "rawtypes"})
    Consumer<Exception>[] onDelivery = new Consumer[] {(Consumer<Exception>) this::delivered, (Consumer<Exception>) this::warmupDelivered};
    sink.deliveries(List.of(onDelivery));
    int idle = 0;
    while (true) {
      CheckIn c = null;
      int lane = 0;
      // a device's check-in waiting goes first; the warm-up's lane is polled only while the edge is open
      for (; lane < LANES - (closed ? 1 : 0); lane++) {
        c = queues[lane].poll();
        if (c != null) {
          break;
        }
      }
      if (c == null) {
        if (closed) {
          return;
        }
        // 10 ms while traffic flows; after a quiet second, 20 ms so an idle edge does not spin
        LockSupport.parkNanos(idle++ < BUSY_POLLS ? PARK_BUSY_NANOS : PARK_IDLE_NANOS);
        continue;
      }
      idle = 0;
      sizes[lane].decrementAndGet();
      taken += COUNTED[lane];
      Consumer<Exception> done = onDelivery[lane];
      try {
        sink.send(c, lane);
      } catch (RuntimeException e) {
        // interrupted at close, producer closed, or max.block.ms passed with the buffer still full
        done.accept(e);
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      }
    }
  }

  private void warmupDelivered(Exception e) {
    if (e == null) {
      warmSent.incrementAndGet();
    } else if (warmFailuresLogged.getAndIncrement() < 3) {
      LOG.warn("warm-up check-in not delivered: {}", e.toString());
    }
  }

  private void delivered(Exception e) {
    if (e == null) {
      sent.increment();
      return;
    }
    droppedFailed.increment();
    synchronized (this) {
      failuresLogged++;
      if (failuresLogged <= 5 || failuresLogged % 10_000 == 0) {
        LOG.warn("check-in not delivered (failures so far={}): {}", failuresLogged, e.toString());
      }
    }
  }

  /**
   * Stops taking check-ins, lets the sender hand over what is queued and the producer deliver what it
   * accepted, waiting at most about {@code timeout} (less when the sender makes no progress for two
   * seconds: Kafka is unreachable). Whatever is still queued then is counted as dropped.
   */
  public void close(Duration timeout) {
    closed = true;
    queues[WARMUP].clear(); // a warm-up cut short by the close: nothing of it is worth delivering
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastTaken = taken;
    long lastProgress = System.nanoTime();
    while (sender.isAlive() && sizes[DEVICE].get() > 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      if (taken != lastTaken) {
        lastTaken = taken;
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(2)) {
        break;
      }
    }
    int left = 0;
    while (queues[DEVICE].poll() != null) {
      left++;
    }
    sizes[DEVICE].addAndGet(-left);
    droppedShutdownBy[DEVICE].increment(left);
    // delivers what the producer accepted (bounded) and fails a send still blocked, which frees the sender
    sink.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    try {
      sender.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (sender.isAlive()) {
      LOG.warn("check-in sender did not stop; interrupting it");
      sender.interrupt();
    }
  }
}
