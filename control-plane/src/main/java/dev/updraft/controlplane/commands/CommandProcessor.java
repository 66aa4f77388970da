package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.log.EventLog;
import dev.updraft.controlplane.log.LogWriteException;
import dev.updraft.controlplane.snapshots.Snapshotter;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.StateFold;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs commands one at a time on one thread that owns the {@link EventLog}: decide against the current
 * state, append the planned events in one transaction, read them back, fold them, answer. The state is
 * an immutable {@link ControlState} published through a volatile field once a command's events are all folded
 * (they may be read back over several polls), so readers on any thread see whole commands only and the
 * writer's own answers reflect its write.
 *
 * <p>Failure handling ({@link WriterHealth}): when another instance fences this one, every later command is
 * refused with 503 {@code fenced} and {@link #health()} turns {@link Health#FENCED}. When a commit's outcome is
 * unknown the instance stops writing and finds out what it can ({@link EventLog#settle}): whether the write was
 * committed (then it is answered as a success) and whether another instance took over (then this one is
 * {@link Health#FENCED}, and a write that was not committed is refused as fenced, "nothing was written").
 * When another instance did not take over, or that stays unknown, it is {@link Health#BROKEN}: a restart
 * replays, and an idempotency key makes the publisher's retry safe.
 */
public final class CommandProcessor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommandProcessor.class);
  private static final Duration READ_BACK_TIMEOUT = Duration.ofSeconds(30);
  /** How long a write whose commit outcome is unknown may wait for the log and the coordinator to tell. */
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(15);
  /** How long a command waits for Kafka to describe the events topic before it is refused (503 {@code log-unavailable}). */
  public static final Duration LOG_PROBE_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration SNAPSHOT_PROBE_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration SNAPSHOT_PAUSE = Duration.ofSeconds(10);
  /** {@link System#nanoTime}: no snapshot is tried before (Kafka was unreachable); command thread only. */
  private long snapshotsPausedUntil = System.nanoTime();

  /** Whether this instance may write. */
  public enum Health {
    STARTING,
    OK,
    FENCED,
    BROKEN,
    CLOSED
  }

  private final EventLog log;
  private final Clock clock;
  private final MeterRegistry metrics;
  private final Runnable afterCommit;
  private final ThreadPoolExecutor thread;
  private final Counter malformed;
  private final Counter appended;
  private volatile Follow follow;
  /** Nullable: snapshots off. Command thread only after start. */
  private Snapshotter snapshots;
  private Runnable beforeSnapshotCommit;
  private boolean replaying;
  private volatile long snapshotTimer = -1;
  private volatile Vertx timerVertx;
  private volatile ControlState state = ControlState.EMPTY;
  /** The state being folded from records read back or replayed, published whole by {@link #publishFolded} (command thread only). */
  private ControlState folding;
  private volatile long stateVersion;
  private final WriterHealth writer = new WriterHealth();

  /**
   * @param afterCommit nullable test hook run after a commit and before the read-back; if it throws, the
   *     instance behaves as after a crash between commit and answer
   */
  public CommandProcessor(EventLog log, Clock clock, MeterRegistry metrics, Runnable afterCommit) {
    this.log = log;
    this.clock = clock;
    this.metrics = metrics;
    this.afterCommit = afterCommit;
    this.thread =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(1000),
            r -> {
              Thread t = new Thread(r, "updraft-commands");
              t.setDaemon(true);
              return t;
            });
    this.malformed = Counter.builder("updraft_control_events_malformed_total").description("records in updraft.events that are not events").register(metrics);
    this.appended = Counter.builder("updraft_control_events_appended_total").description("events appended by this instance").register(metrics);
    metrics.gauge("updraft_control_apps", this, p -> p.state.apps().size());
    metrics.gauge("updraft_control_writable", this, p -> p.writer.health() == Health.OK ? 1 : 0);
  }

  /**
   * Events that other events imply, appended in the same transaction right before the event that implies
   * them (so a reader that has the event already has them): for example where a newly published launch
   * asset can be fetched, before the manifest pointing at it. Runs on the command thread.
   */
  @FunctionalInterface
  public interface Follow {
    /** Payloads for the same app to append before {@code payload} (planned against {@code before}); may be empty. */
    List<dev.updraft.events.EventPayload> implied(ControlState before, String appId, dev.updraft.events.EventPayload payload);
  }

  /** Sets the {@link Follow} every command's events go through (null: none). */
  public void follow(Follow f) {
    this.follow = f;
  }

  /**
   * Starts from snapshots and writes them ({@link Snapshotter}); before {@link #start}.
   *
   * @param beforeSnapshotCommit nullable test seam: runs after a snapshot's records are sent, before their commit
   */
  public void snapshots(Snapshotter s, Runnable beforeSnapshotCommit) {
    this.snapshots = s;
    this.beforeSnapshotCommit = beforeSnapshotCommit;
  }

  /** The snapshots, or null when off. */
  public Snapshotter snapshots() {
    return snapshots;
  }

  /** The current state (never null): whole commands only, never part of one. */
  public ControlState state() {
    return state;
  }

  /** How many states were published: one per command that wrote events, and one for the start's replay. */
  public long stateVersion() {
    return stateVersion;
  }

  /** The largest encoded event the log takes (known once the writer started; Kafka's default before). */
  int maxEventBytes() {
    return log.maxEventBytes();
  }

  public Health health() {
    return writer.health();
  }

  /** Why the instance is not {@link Health#OK}, for {@code /healthz}. */
  public String healthReason() {
    return writer.reason();
  }

  public Clock clock() {
    return clock;
  }

  /**
   * Runs {@code prepare} (topics, writer) and then the replay, on the command thread.
   *
   * @return completes once the state has caught up with the log
   */
  public Future<Void> start(Vertx vertx, Callable<Void> prepare, Duration replayTimeout) {
    timerVertx = vertx;
    return onThread(
        vertx,
        () -> {
          prepare.call();
          Snapshotter snaps = snapshots;
          if (snaps != null) {
            state = snaps.load(state, clock.instant(), replayTimeout);
          }
          replaying = true;
          long n;
          try {
            n = log.replay(ps -> snaps == null ? Map.of() : snaps.startOffsets(ps), this::fold, replayTimeout);
          } finally {
            publishFolded();
          }
          replaying = false;
          writer.ok();
          if (snaps != null) {
            snapshotTimer = vertx.setPeriodic(1000, 1000, id -> snapshotDue(vertx, false).onFailure(t -> LOG.warn("snapshot: {}", t.getMessage())));
          }
          LOG.info("control plane caught up: records={} apps={} snapshotApps={} eventsReplayed={}", n, state.apps().size(),
              snaps == null ? 0 : snaps.snapshotApps(), snaps == null ? n : snaps.eventsReplayed());
          return null;
        });
  }

  /**
   * Writes the snapshots of the apps due (with {@code all}: of every app with events since its last one),
   * on the command thread between commands.
   *
   * @return how many apps were written (0 when none was due, snapshots are off or this instance cannot write)
   */
  public Future<Integer> snapshotDue(Vertx vertx, boolean all) {
    return onThread(vertx, () -> {
      if (snapshots == null || writer.health() != Health.OK) {
        return 0;
      }
      try {
        if (System.nanoTime() - snapshotsPausedUntil < 0) {
          return 0;
        }
        return snapshots.writeDue(state, clock.instant(), all, records -> {
          String unwritable = log.unwritable(SNAPSHOT_PROBE_TIMEOUT);
          if (unwritable != null) { // an outage: the command thread must not wait on it every second
            snapshotsPausedUntil = System.nanoTime() + SNAPSHOT_PAUSE.toNanos();
            throw new LogWriteException(LogWriteException.Kind.ABORTED, unwritable + " (probe of " + SNAPSHOT_PROBE_TIMEOUT.toMillis()
                + " ms); next try in " + SNAPSHOT_PAUSE.toSeconds() + " s", null);
          }
          log.writeOther(records, beforeSnapshotCommit);
        });
      } catch (LogWriteException e) {
        if (e.kind() == LogWriteException.Kind.FENCED) {
          throw writer.refusal(e);
        }
        LOG.warn("snapshot not written ({}); the previous ones stay: {}", e.kind(), e.getMessage());
        return 0;
      }
    });
  }

  /** Submits a command; the future fails with {@link CommandException} when it is refused. */
  <T> Future<T> submit(Vertx vertx, String name, Decision<T> decision) {
    Timer.Sample sample = Timer.start(metrics);
    Future<T> f = onThread(vertx, () -> run(decision));
    return f.andThen(
        ar -> {
          String outcome =
              ar.succeeded()
                  ? "ok"
                  : ar.cause() instanceof CommandException && ((CommandException) ar.cause()).status() < 500
                      ? "rejected"
                      : "failed";
          metrics.counter("updraft_control_commands_total", "command", name, "outcome", outcome).increment();
          sample.stop(metrics.timer("updraft_control_command_seconds", "command", name, "outcome", outcome));
        });
  }

  private <T> Future<T> onThread(Vertx vertx, Callable<T> work) {
    Context ctx = vertx.getOrCreateContext();
    Promise<T> promise = Promise.promise();
    try {
      thread.execute(
          () -> {
            T result;
            try {
              result = work.call();
            } catch (Throwable t) {
              if (!(t instanceof CommandException)) {
                LOG.error("command failed", t);
              }
              ctx.runOnContext(v -> promise.fail(t));
              return;
            }
            ctx.runOnContext(v -> promise.complete(result));
          });
    } catch (RejectedExecutionException e) {
      promise.fail(writer.notQueued());
    }
    return promise.future();
  }

  private <T> T run(Decision<T> decision) {
    writer.admit();
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
    ControlState before = state;
    // asked before deciding, read after: Kafka's answer (a round trip, ~10 ms on a busy host) arrives while the
    // command decides instead of after it; a command that writes nothing does not wait for it
    long probe = System.nanoTime();
    Supplier<String> writable = log.probe(LOG_PROBE_TIMEOUT);
    Plan<T> plan = decision.decide(before, now);
    if (plan.events().isEmpty()) {
      return plan.result().apply(before);
    }
    String unwritable = writable.get();
    if (unwritable != null) { // nothing sent: nothing of this command can become visible later
      LOG.warn("command refused ({} ms): {}", (System.nanoTime() - probe) / 1_000_000, unwritable);
      throw new CommandException(503, "log-unavailable", unwritable + "; nothing was written; retry later");
    }
    List<EventEnvelope> envelopes = new ArrayList<>();
    Map<String, Long> next = new HashMap<>();
    for (NewEvent ne : followed(before, plan.events())) {
      AppState app = before.app(ne.appId());
      long seq = next.getOrDefault(ne.appId(), app == null ? 0 : app.lastSequence()) + 1;
      next.put(ne.appId(), seq);
      envelopes.add(EventEnvelope.of(ne.appId(), seq, now, ne.actor(), ne.payload()));
    }
    List<RecordMetadata> written;
    try {
      written = log.append(envelopes);
    } catch (LogWriteException e) {
      if (e.kind() != LogWriteException.Kind.UNCERTAIN) {
        throw writer.refusal(e);
      }
      written = writer.settle(log, e, SETTLE_TIMEOUT);
    }
    appended.increment(envelopes.size());
    if (afterCommit != null) {
      try {
        afterCommit.run();
      } catch (RuntimeException e) {
        throw writer.stoppedAfterCommit(e);
      }
    }
    try {
      log.awaitOwn(written, this::fold, READ_BACK_TIMEOUT);
    } catch (LogWriteException e) {
      throw writer.refusal(e);
    } finally {
      publishFolded(); // the command's events arrive over one or more polls: readers see them all at once
    }
    return plan.result().apply(state);
  }

  /** {@code events} with what {@link #follow} adds before each. */
  private List<NewEvent> followed(ControlState before, List<NewEvent> events) {
    Follow f = follow;
    if (f == null) {
      return events;
    }
    List<NewEvent> out = new ArrayList<>();
    for (NewEvent ne : events) {
      for (dev.updraft.events.EventPayload extra : f.implied(before, ne.appId(), ne.payload())) {
        out.add(new NewEvent(ne.appId(), Commands.ACTOR_SYSTEM, extra));
      }
      out.add(ne);
    }
    return out;
  }

  /** Folds one record read from the log (replay or read-back). Command thread only. */
  private void fold(ConsumerRecord<String, byte[]> r) {
    Decoded d = EventCodec.decode(r.value());
    if (d instanceof Decoded.Known) {
      String appId = ((Decoded.Known) d).envelope().appId();
      if (snapshots != null && snapshots.covers(appId, r.partition(), r.offset())) {
        return; // in the app's snapshot already
      }
      folding = StateFold.apply(folding(), ((Decoded.Known) d).envelope());
      folded(appId, r);
    } else if (d instanceof Decoded.Unknown) {
      Decoded.Unknown u = (Decoded.Unknown) d;
      if (snapshots != null && snapshots.covers(u.appId(), r.partition(), r.offset())) {
        return;
      }
      LOG.warn("event of unknown type={} schemaVersion={} appId={} sequence={} at partition={} offset={}", u.type(), u.schemaVersion(), u.appId(), u.sequence(), r.partition(), r.offset());
      folding = StateFold.applyUnknown(folding(), u);
      folded(u.appId(), r);
    } else {
      malformed.increment();
      LOG.error("skipping malformed record partition={} offset={}: {}", r.partition(), r.offset(), ((Decoded.Malformed) d).reason());
    }
  }

  private ControlState folding() {
    return folding != null ? folding : state;
  }

  /** Publishes what {@link #fold} folded since the last call, with one write of {@link #state}. */
  private void publishFolded() {
    if (folding != null) {
      state = folding;
      folding = null;
      stateVersion++; // command thread only
    }
  }

  private void folded(String appId, ConsumerRecord<String, byte[]> r) {
    if (snapshots != null && folding().app(appId) != null) {
      snapshots.folded(appId, r.partition(), r.offset(), clock.instant(), replaying);
    }
  }

  /** Stops taking commands, lets the running one finish, closes the log. Blocking. */
  @Override
  public void close() {
    if (snapshotTimer >= 0) {
      timerVertx.cancelTimer(snapshotTimer);
    }
    writer.closing();
    thread.shutdown();
    try {
      if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      thread.shutdownNow();
    }
    log.close();
  }
}
