package dev.updraft.load.run;

import dev.updraft.load.fleet.Fleet;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The generator's warm-up before a run (untimed, unrecorded): {@code --warmup} requests per lane to the target or
 * to a {@link WarmupMirror} of the discovered answers.
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
          lane.warmup(t.host, t.port, t.ssl, uri, requests, toTarget, true).await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          // await rethrows the failure as it is (a ConnectException too); a target may be down on purpose (restart scenarios): the run measures it
          if (out != null) {
            out.println("[" + label + "] warm-up against " + t.base + uri + " failed (" + e.getMessage() + "); continuing");
          }
        }
      }
    }
    if (!mirror) {
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
}
