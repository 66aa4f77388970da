package dev.updraft.load.run;

import dev.updraft.load.fleet.Fleet;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The generator's warm-up before a run (untimed, unrecorded): {@code --warmup} requests per lane to the target or
 * to a {@link WarmupMirror}, then, with {@code --warmup-until-quiet}, more until this JVM's JIT is quiet.
 */
final class GeneratorWarmup {
  private final RunConfig config;
  private final Fleet fleet;
  private final List<Discovered> discovered;
  private final List<Lane> lanes;
  private final PrintStream out;
  private final String label;

  GeneratorWarmup(RunConfig config, Fleet fleet, List<Discovered> discovered, List<Lane> lanes, PrintStream out,
      String label) {
    this.config = config;
    this.fleet = fleet;
    this.discovered = discovered;
    this.lanes = lanes;
    this.out = out;
    this.label = label;
  }

  /** Warm-up requests each lane sends to each target when the rest go to the mirror: its connections open. */
  static final int TARGET_TOUCH = 4;

  /**
   * Warms every lane up (untimed, unrecorded): with {@code --warmup-on mirror} (the default) and discovered
   * answers, {@link #TARGET_TOUCH} requests per lane to each target and the {@code --warmup} requests to a
   * {@link WarmupMirror} of the discovered answers; otherwise the {@code --warmup} requests to each target. Device
   * requests are shaped as the run's (signature asked when {@code --signature}) and their answers checked as the
   * run checks them. A target that fails is reported, not fatal; a mirror that fails is reported and the run goes on.
   */
  void run(Vertx vertx, List<String> targetUrls) {
    if (config.warmup() <= 0) {
      return;
    }
    Targets ts = new Targets(targetUrls, System.nanoTime());
    List<Lane.WarmRequest> requests = WarmupMirror.requests(config, fleet, discovered);
    String uri = config.replayFile() == null ? config.path() : config.healthPath();
    boolean mirror = config.warmupMirror() && config.replayFile() == null && !discovered.isEmpty();
    int toTarget = mirror ? Math.min(TARGET_TOUCH, config.warmup()) : config.warmup();
    for (Targets.Target t : ts.all) {
      for (Lane lane : lanes) {
        try {
          lane.warmup(t.host, t.port, t.ssl, uri, requests, toTarget).await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          // await rethrows the failure as it is (a ConnectException too); a target may be down on purpose (restart scenarios): the run measures it
          if (out != null) {
            out.println("[" + label + "] warm-up against " + t.base + uri + " failed (" + e.getMessage() + "); continuing");
          }
        }
      }
    }
    if (!mirror) {
      Targets.Target first = ts.all.get(0);
      untilJitQuiet(first.host, first.port, first.ssl, uri, requests);
      return;
    }
    WarmupMirror m = new WarmupMirror(discovered);
    long t0 = System.nanoTime();
    try {
      int port = m.start(vertx).await(10, TimeUnit.SECONDS);
      List<io.vertx.core.Future<Void>> all = new ArrayList<>();
      for (Lane lane : lanes) {
        all.add(lane.warmup("127.0.0.1", port, false, uri, requests, config.warmup()));
      }
      io.vertx.core.Future.all(all).await(120, TimeUnit.SECONDS);
      if (out != null) {
        out.println("[" + label + "] warm-up: " + config.warmup() + " requests per lane to a mirror of the " + discovered.size()
            + " discovered answers in " + (System.nanoTime() - t0) / 1_000_000 + " ms (" + toTarget + " per lane to each target)");
      }
      untilJitQuiet("127.0.0.1", port, false, uri, requests);
    } catch (Exception e) {
      if (out != null) {
        out.println("[" + label + "] warm-up against the mirror failed (" + e.getMessage() + "); continuing");
      }
    } finally {
      try {
        m.close().await(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        // the run does not depend on it
      }
    }
  }

  /** The JIT's share of a warm-up round's wall time under which {@code --warmup-until-quiet} ends the warm-up. */
  static final double QUIET_JIT_SHARE = 0.05;

  /** Requests per lane in one round of {@code --warmup-until-quiet}. */
  static final int QUIET_ROUND = 2_000;

  /**
   * {@code --warmup-until-quiet BOUND}: after the {@code --warmup} requests, more rounds of {@link #QUIET_ROUND}
   * requests per lane to the same place until this JVM's JIT compiled for less than {@link #QUIET_JIT_SHARE} of a
   * round's wall time, or the bound passed. A fixed warm-up ends while the optimising compiler still has a queue:
   * on a 2-core machine a fresh generator went on compiling at 0.7-0.9 of a core for 12 s into a 4,000 req/s run
   * after 30,000 warm-up requests, and its own latency queue was the run's first 25 s (2026-12-02).
   */
  private void untilJitQuiet(String host, int port, boolean ssl, String uri, List<Lane.WarmRequest> requests) {
    if (config.warmupUntilQuiet().isZero() || requests.isEmpty()) {
      return;
    }
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      if (out != null) {
        out.println("[" + label + "] --warmup-until-quiet: this JVM does not report its JIT time; no more warm-up");
      }
      return;
    }
    long start = System.nanoTime();
    long deadline = start + config.warmupUntilQuiet().toNanos();
    int rounds = 0;
    double share = 1;
    try {
      while (share >= QUIET_JIT_SHARE && System.nanoTime() < deadline) {
        long jit0 = jit.getTotalCompilationTime();
        long t0 = System.nanoTime();
        List<io.vertx.core.Future<Void>> all = new ArrayList<>();
        for (Lane lane : lanes) {
          all.add(lane.warmup(host, port, ssl, uri, requests, QUIET_ROUND));
        }
        io.vertx.core.Future.all(all).await(Math.max(1, deadline - System.nanoTime()) + 10_000_000_000L, TimeUnit.NANOSECONDS);
        double wallMs = Math.max(1, (System.nanoTime() - t0) / 1e6);
        share = (jit.getTotalCompilationTime() - jit0) / wallMs;
        rounds++;
      }
    } catch (Exception e) {
      if (out != null) {
        out.println("[" + label + "] --warmup-until-quiet against " + host + ":" + port + " failed (" + e.getMessage() + "); continuing");
      }
      return;
    }
    if (out != null) {
      out.printf(Locale.ROOT, "[%s] warm-up until the JIT is quiet: %d more requests per lane in %d ms, the JIT compiling %.0f %% of"
              + " the last round%s%n", label, rounds * QUIET_ROUND, (System.nanoTime() - start) / 1_000_000, share * 100,
          share >= QUIET_JIT_SHARE ? " (stopped by the bound, " + config.warmupUntilQuiet().toSeconds() + " s)" : "");
    }
  }

}
