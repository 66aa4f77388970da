package dev.updraft.systemtests.support;

import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Infra;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real services of one deployment, in this JVM, on a test class's {@link Infra}: a control plane,
 * a telemetry ingester and one or more edges, on free loopback ports. Close it to stop them all.
 */
public final class Stack implements AutoCloseable {
  public static final String ADMIN_TOKEN = "system-test-admin-token-0123456789";

  public final Vertx vertx = Vertx.vertx();
  public final Infra infra;
  public ControlPlane controlPlane;
  public TelemetryIngester ingester;
  public EdgeNode edge;
  public int ingesterMetricsPort;

  private Stack(Infra infra) {
    this.infra = infra;
  }

  /** Starts control plane, ingester and an edge (ready) on {@code infra}, keys and assets under {@code dataDir}. */
  public static Stack start(Infra infra, Path dataDir) {
    return start(infra, dataDir, Map.of());
  }

  /** {@link #start(Infra, Path)} with extra control-plane flags. */
  public static Stack start(Infra infra, Path dataDir, Map<String, String> controlPlaneFlags) {
    Stack s = new Stack(infra);
    try {
      // as `updraft control-plane` runs it: with the insights routes and the automatic-revert guard
      Map<String, String> flags = s.controlPlaneFlags(dataDir);
      flags.putAll(controlPlaneFlags);
      Settings cp = Settings.of(flags, Map.of());
      s.controlPlane =
          await(ControlPlane.start(s.vertx, ControlPlaneConfig.from(cp, InsightsExtension.FLAGS), List.of(InsightsExtension.from(cp))));
      Map<String, String> in = new LinkedHashMap<>();
      in.put("kafka-bootstrap", infra.kafkaBootstrap());
      in.put("topic-prefix", infra.topicPrefix());
      in.put("postgres-url", s.postgresUrl());
      s.ingesterMetricsPort = Ports.freePort();
      in.put("metrics-port", Integer.toString(s.ingesterMetricsPort));
      in.put("bind", "127.0.0.1");
      in.put("ingest-batch-wait", "50ms");
      s.ingester = await(TelemetryIngester.start(s.vertx, IngesterConfig.from(Settings.of(in, Map.of()))));
      s.edge = s.startEdge("edge-1");
      return s;
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  Map<String, String> controlPlaneFlags(Path dataDir) {
    Map<String, String> cp = new LinkedHashMap<>();
    cp.put("kafka-bootstrap", infra.kafkaBootstrap());
    cp.put("topic-prefix", infra.topicPrefix());
    cp.put("control-port", "0");
    cp.put("bind", "127.0.0.1");
    cp.put("admin-token", ADMIN_TOKEN);
    cp.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    cp.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    cp.put("data-dir", dataDir.toString());
    cp.put("postgres-url", postgresUrl());
    cp.put("asset-encoding", "fast"); // low levels: no test here measures compression
    return cp;
  }

  public String postgresUrl() {
    String auth = infra.pgPassword().isEmpty() ? infra.pgUser() : infra.pgUser() + ":" + infra.pgPassword();
    return "postgresql://" + auth + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
  }

  /** Stops the control plane and starts a fresh one on the same log and data dir with these flags. */
  public void restartControlPlane(Path dataDir, Map<String, String> controlPlaneFlags) {
    await(controlPlane.close());
    Map<String, String> flags = controlPlaneFlags(dataDir);
    flags.putAll(controlPlaneFlags);
    Settings cp = Settings.of(flags, Map.of());
    controlPlane = await(ControlPlane.start(vertx, ControlPlaneConfig.from(cp, InsightsExtension.FLAGS), List.of(InsightsExtension.from(cp))));
  }

  /** Starts another edge on the same log and waits until it is ready. */
  public EdgeNode startEdge(String id) {
    return startEdge(id, Map.of());
  }

  /** Starts another edge with extra flags (e.g. another {@code topic-prefix}) and waits until it is ready. */
  public EdgeNode startEdge(String id, Map<String, String> extraFlags) {
    Map<String, String> ed = new LinkedHashMap<>();
    ed.put("kafka-bootstrap", infra.kafkaBootstrap());
    ed.put("topic-prefix", infra.topicPrefix());
    ed.put("edge-port", "0");
    ed.put("bind", "127.0.0.1");
    ed.put("edge-id", id);
    ed.put("warmup-requests", "0"); // tests measure no speed; WarmupIT covers the warm-up
    ed.putAll(extraFlags);
    EdgeNode e = await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, Map.of()))));
    awaitReady(e);
    return e;
  }

  public static void awaitReady(EdgeNode e) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!e.ready()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("edge not ready within 60 s");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(ex);
      }
    }
  }

  public String controlUrl() {
    return "http://127.0.0.1:" + controlPlane.port();
  }

  public String edgeUrl() {
    return "http://127.0.0.1:" + edge.port();
  }

  public String ingesterMetricsUrl() {
    return "http://127.0.0.1:" + ingesterMetricsPort + "/metrics";
  }

  public static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : new IllegalStateException(e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void quietly(Future<?> f) {
    try {
      f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("stack: close failed: " + e);
    }
  }

  @Override
  public void close() {
    if (edge != null) {
      quietly(edge.close());
    }
    if (ingester != null) {
      quietly(ingester.close());
    }
    if (controlPlane != null) {
      quietly(controlPlane.close());
    }
    quietly(vertx.close());
  }
}
