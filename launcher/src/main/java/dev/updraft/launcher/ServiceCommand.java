package dev.updraft.launcher;

import dev.updraft.common.FlagTable;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.config.ControlPlaneFlags;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeFlags;
import dev.updraft.edge.EdgeNode;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.IngesterFlags;
import dev.updraft.ingester.TelemetryIngester;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** {@code ./updraft control-plane | edge | ingest}: one service alone, configured by flags and env. */
final class ServiceCommand {
  private ServiceCommand() {}

  static int runUntilSignalled(String name, String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Settings s = Settings.parse(args, env);
    if (s.bool("help", false)) {
      out.print(help(name));
      return 0;
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    Supplier<Future<Void>> stop;
    long drainMillis = 0; // the edge serves that long after SIGTERM (--drain) before it closes
    try {
      switch (name) {
        case "control-plane": {
          // insights routes and the automatic-revert guard (--guard-interval) run inside the control plane
          ControlPlaneConfig config = ControlPlaneConfig.from(s, InsightsExtension.FLAGS);
          ControlPlane cp = await(ControlPlane.start(vertx, config, List.of(InsightsExtension.from(s))));
          out.println("control plane listening on " + cp.port());
          stop = cp::close;
          break;
        }
        case "edge": {
          EdgeNode edge = await(EdgeNode.start(vertx, EdgeConfig.from(s)));
          out.println("edge listening on " + edge.port() + " (ready once caught up with the event log: /readyz)");
          stop = edge::drainAndClose;
          drainMillis = edge.drainPeriod().toMillis();
          break;
        }
        case "ingest": {
          TelemetryIngester ingester = await(TelemetryIngester.start(vertx, IngesterConfig.from(s)));
          out.println("telemetry ingester running");
          stop = ingester::close;
          break;
        }
        default:
          throw new IllegalArgumentException("unknown service " + name);
      }
    } catch (RuntimeException e) {
      vertx.close();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    long stopMillis = 10_000 + drainMillis;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    stop.get().toCompletionStage().toCompletableFuture().get(stopMillis, TimeUnit.MILLISECONDS);
                    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    err.println(name + " did not stop cleanly: " + e);
                  }
                  stopped.countDown();
                },
                "updraft-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** What each server is, for its {@code --help}. */
  private static final Map<String, String> ABOUT = Map.of(
      "control-plane", "The publisher API alone: the one writer of the event log (see docs/operations.md, Control plane).",
      "edge", "An edge node alone: serves manifests and launch assets from its image of the event log (docs/operations.md, Edges).",
      "ingest", "A telemetry ingester alone: check-ins from Kafka into PostgreSQL (docs/operations.md, Ingesters).");

  /** The {@code --help} of a server: its usage and every flag with its variable, kind, default and meaning. */
  static String help(String name) {
    return table(name).help("usage: updraft " + name + " [--flag value ...]\n" + ABOUT.get(name) + "\n");
  }

  /** Every flag {@code name} takes: its service's table (the control plane's with its insights extension's). */
  static FlagTable table(String name) {
    switch (name) {
      case "control-plane":
        return FlagTable.builder().include(ControlPlaneFlags.TABLE).include(InsightsExtension.TABLE).build();
      case "edge":
        return EdgeFlags.TABLE;
      case "ingest":
        return IngesterFlags.TABLE;
      default:
        throw new IllegalArgumentException("unknown service " + name);
    }
  }

  private static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException ? (RuntimeException) c : new IllegalStateException(c.toString(), c);
    } catch (Exception e) {
      throw new IllegalStateException("service did not start: " + e, e);
    }
  }
}
