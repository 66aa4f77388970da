package dev.updraft.controlplane.guard;

import dev.updraft.controlplane.spi.ActiveRollout;
import dev.updraft.controlplane.spi.RolloutControl;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The automatic-revert guard: every {@code interval}, each active per-update rollout that carries a guard
 * is evaluated against the telemetry ({@link RolloutGuardEvaluator}); when one fires, the rollout is
 * reverted through {@link RolloutControl#revertByGuard} (event {@code rollout.reverted}, actor
 * {@code guard}, the verdict's numbers as the reason).
 *
 * <p>Passes never overlap: the next one is scheduled when the previous one has finished, so a slow
 * database or a revert in flight cannot make the guard revert a rollout twice. Only the instance that
 * holds the event log's writer fence acts (a fenced or starting instance would be refused anyway); the
 * others count standby passes. Every error (PostgreSQL down, a refused revert) is logged and counted and
 * the next pass runs as usual: the guard never stops the control plane.
 *
 * <p>Metrics: {@code updraft_guard_passes_total} (passes completed by the writer),
 * {@code updraft_guard_standby_passes_total}, {@code updraft_guard_evaluations_total{verdict=holds|fires}},
 * {@code updraft_guard_reverts_total}, {@code updraft_guard_errors_total{stage=evaluate|revert}}.
 *
 * <p>Thread-safety: runs on one Vert.x context; {@link #stop} may be called from any thread.
 */
public final class AutoRevertGuard {
  private static final Logger LOG = LoggerFactory.getLogger(AutoRevertGuard.class);

  private final Vertx vertx;
  private final RolloutControl rollouts;
  private final RolloutGuardEvaluator evaluator;
  private final TelemetryDb db;
  private final BooleanSupplier writer;
  private final Clock clock;
  private final long intervalMillis;
  private final Counter passes;
  private final Counter standby;
  private final Counter holds;
  private final Counter fires;
  private final Counter reverts;
  private final Counter evaluateErrors;
  private final Counter revertErrors;
  private final Promise<Void> stopped = Promise.promise();
  private volatile boolean stopping;
  private volatile boolean running;
  private volatile long timer = -1;
  private volatile Context context;

  public AutoRevertGuard(
      Vertx vertx,
      RolloutControl rollouts,
      RolloutGuardEvaluator evaluator,
      TelemetryDb db,
      BooleanSupplier writer,
      MeterRegistry registry,
      Clock clock,
      Duration interval) {
    this.vertx = vertx;
    this.rollouts = rollouts;
    this.evaluator = evaluator;
    this.db = db;
    this.writer = writer;
    this.clock = clock;
    this.intervalMillis = interval.toMillis();
    this.passes = Counter.builder("updraft.guard.passes").description("automatic-revert guard passes completed by the writer").register(registry);
    this.standby =
        Counter.builder("updraft.guard.standby.passes").description("guard passes skipped because this instance is not the writer").register(registry);
    this.holds = Counter.builder("updraft.guard.evaluations").tag("verdict", "holds").description("rollout guards evaluated").register(registry);
    this.fires = Counter.builder("updraft.guard.evaluations").tag("verdict", "fires").description("rollout guards evaluated").register(registry);
    this.reverts = Counter.builder("updraft.guard.reverts").description("rollouts reverted by their guard").register(registry);
    this.evaluateErrors = Counter.builder("updraft.guard.errors").tag("stage", "evaluate").description("guard errors (logged)").register(registry);
    this.revertErrors = Counter.builder("updraft.guard.errors").tag("stage", "revert").description("guard errors (logged)").register(registry);
  }

  /** Schedules the first pass one interval from now. Call once, on the context the guard should run on. */
  public void start() {
    context = vertx.getOrCreateContext();
    LOG.info("automatic-revert guard checks guarded rollouts every {} ms", intervalMillis);
    schedule();
  }

  /** Stops scheduling; completes once a pass in progress has finished. Idempotent. */
  public Future<Void> stop() {
    stopping = true;
    if (context == null) {
      stopped.tryComplete(); // never started
      return stopped.future();
    }
    context.runOnContext(v -> {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
      if (!running) {
        stopped.tryComplete();
      }
    });
    return stopped.future();
  }

  private void schedule() {
    if (stopping) {
      stopped.tryComplete();
      return;
    }
    timer =
        vertx.setTimer(
            intervalMillis,
            id -> {
              timer = -1;
              running = true;
              Future<Void> done;
              try {
                done = pass();
              } catch (RuntimeException e) {
                LOG.error("guard: a pass failed", e);
                done = Future.succeededFuture();
              }
              // database futures may complete on another event loop: the next pass is scheduled from ours
              done.onComplete(ar -> context.runOnContext(v -> {
                running = false;
                schedule();
              }));
            });
  }

  /** One pass over every guarded rollout; never fails. */
  Future<Void> pass() {
    if (!writer.getAsBoolean()) {
      standby.increment();
      return Future.succeededFuture();
    }
    List<ActiveRollout> guarded = new ArrayList<>();
    try {
      for (ActiveRollout r : rollouts.activeRollouts()) {
        if (r.guard() != null && !r.updateIds().isEmpty()) {
          guarded.add(r);
        }
      }
    } catch (RuntimeException e) {
      evaluateErrors.increment();
      LOG.error("guard: cannot list the active rollouts", e);
      passes.increment();
      return Future.succeededFuture();
    }
    if (guarded.isEmpty()) {
      passes.increment();
      return Future.succeededFuture();
    }
    List<Future<Void>> checks = new ArrayList<>(guarded.size());
    for (ActiveRollout r : guarded) {
      checks.add(check(r));
    }
    return Future.join(checks).<Void>mapEmpty().otherwiseEmpty().andThen(ar -> passes.increment());
  }

  private Future<Void> check(ActiveRollout r) {
    Future<GuardVerdict> verdict;
    try {
      verdict = db.ready().compose(v -> evaluator.evaluate(r.appId(), List.copyOf(r.updateIds().values()), r.controlUpdateIds(), r.guard(), clock.instant()));
    } catch (RuntimeException e) {
      evaluateErrors.increment();
      LOG.error("guard: cannot evaluate the guard of app={} group={}: {}", r.appId(), r.groupId(), e.getMessage());
      return Future.succeededFuture();
    }
    return verdict
        .recover(
            err -> {
              evaluateErrors.increment();
              if (TelemetryDb.isOutage(err)) {
                db.unavailable(err);
              } else {
                LOG.error("guard: evaluating app={} group={} failed", r.appId(), r.groupId(), err);
              }
              return Future.succeededFuture();
            })
        .compose(
            v -> {
              if (v == null) {
                return Future.succeededFuture();
              }
              db.available();
              if (!v.fire()) {
                holds.increment();
                LOG.debug("guard: app={} group={} {}", r.appId(), r.groupId(), v.reason());
                return Future.succeededFuture();
              }
              fires.increment();
              return revert(r, v);
            });
  }

  private Future<Void> revert(ActiveRollout r, GuardVerdict v) {
    LOG.warn("guard: reverting the rollout of app={} group={} ({} %): {}", r.appId(), r.groupId(), r.percentage(), v.reason());
    return rollouts
        .revertByGuard(r.appId(), r.groupId(), v.reason())
        .map(
            replacement -> {
              reverts.increment();
              LOG.warn("guard: reverted the rollout of app={} group={}; replacement group={}", r.appId(), r.groupId(), replacement);
              return (Void) null;
            })
        .recover(
            err -> {
              revertErrors.increment();
              if (err instanceof CommandException && ((CommandException) err).status() == 409) {
                LOG.info("guard: the rollout of app={} group={} changed meanwhile, nothing reverted: {}", r.appId(), r.groupId(), err.getMessage());
              } else if (err instanceof CommandException && ((CommandException) err).status() == 503) {
                LOG.warn("guard: cannot revert app={} group={} now (this instance cannot write: {}); the next pass tries again",
                    r.appId(), r.groupId(), err.getMessage());
              } else {
                LOG.error("guard: reverting app={} group={} failed; the next pass tries again", r.appId(), r.groupId(), err);
              }
              return Future.succeededFuture();
            });
  }
}
