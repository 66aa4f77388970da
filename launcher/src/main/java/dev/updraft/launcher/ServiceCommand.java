package dev.updraft.launcher;

import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeNode;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.TelemetryIngester;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** {@code ./updraft control-plane | edge | ingest}: one service alone, configured by flags and env. */
final class ServiceCommand {
  private ServiceCommand() {}

  static int runUntilSignalled(String name, String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Settings s = Settings.parse(args, env);
    if (s.bool("help", false)) {
      out.println("usage: updraft " + name + " [--flag value ...]; every flag --x also reads UPDRAFT_X from the environment");
      out.println("flags: --" + String.join(", --", new TreeSet<>(flags(name))));
      return 0;
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    Supplier<Future<Void>> stop;
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
          stop = edge::close;
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
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    stop.get().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
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

  private static java.util.Set<String> flags(String name) {
    switch (name) {
      case "control-plane": {
        java.util.Set<String> all = new java.util.HashSet<>(ControlPlaneConfig.FLAGS);
        all.addAll(InsightsExtension.FLAGS);
        return all;
      }
      case "edge":
        return EdgeConfig.FLAGS;
      default:
        return IngesterConfig.FLAGS;
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
