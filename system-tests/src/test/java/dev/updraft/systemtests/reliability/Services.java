package dev.updraft.systemtests.reliability;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Starting the real services in this JVM on loopback (any free port) against a given Kafka and topic
 * prefix, and waiting on conditions with a deadline. Shared by the reliability and security tests.
 */
public final class Services {
  /** The bootstrap admin token of every control plane these tests start. */
  public static final String ADMIN = "reliability-admin-token-0123456789";

  private Services() {}

  /** Flags of a control plane on {@code kafka}/{@code prefix}, any free port, data under {@code dataDir}. */
  public static Map<String, String> controlPlaneFlags(String kafka, String prefix, Path dataDir, String... extra) {
    Map<String, String> f = new HashMap<>();
    f.put("kafka-bootstrap", kafka);
    f.put("topic-prefix", prefix);
    f.put("control-port", "0");
    f.put("bind", "127.0.0.1");
    f.put("admin-token", ADMIN);
    f.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    f.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    f.put("data-dir", dataDir.toString());
    f.put("asset-encoding", "fast"); // low levels: no test here measures compression
    put(f, extra);
    return f;
  }

  /** A control plane started and caught up with the log. */
  public static ControlPlane controlPlane(Vertx vertx, String kafka, String prefix, Path dataDir, String... extra) {
    Map<String, String> f = controlPlaneFlags(kafka, prefix, dataDir, extra);
    return await(ControlPlane.start(vertx, ControlPlaneConfig.from(Settings.of(f, Map.of()))));
  }

  /**
   * A control plane wired as {@code updraft control-plane} wires it (launcher ServiceCommand): with the
   * insights extension mounted, reading telemetry from {@code postgresUrl}.
   */
  public static ControlPlane controlPlaneWithInsights(Vertx vertx, String kafka, String prefix, Path dataDir, String postgresUrl,
      String... extra) {
    Map<String, String> f = controlPlaneFlags(kafka, prefix, dataDir, extra);
    f.put("postgres-url", postgresUrl);
    Settings s = Settings.of(f, Map.of());
    return await(ControlPlane.start(vertx, ControlPlaneConfig.from(s, InsightsExtension.FLAGS), List.of(InsightsExtension.from(s))));
  }

  /** An edge whose servers listen (not necessarily ready yet). */
  public static EdgeNode edge(Vertx vertx, String kafka, String prefix, String edgeId, String... extra) {
    Map<String, String> f = new HashMap<>();
    f.put("kafka-bootstrap", kafka);
    f.put("topic-prefix", prefix);
    f.put("edge-port", "0");
    f.put("bind", "127.0.0.1");
    f.put("edge-id", edgeId);
    f.put("event-loops", "1");
    f.put("warmup-requests", "0"); // tests measure no speed; WarmupIT covers the warm-up
    put(f, extra);
    return await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(f, Map.of()))));
  }

  /** An edge that has caught up with the event log. */
  public static EdgeNode readyEdge(Vertx vertx, String kafka, String prefix, String edgeId, String... extra) {
    EdgeNode e = edge(vertx, kafka, prefix, edgeId, extra);
    until("edge " + edgeId + " ready", e::ready, Duration.ofSeconds(60));
    return e;
  }

  /** A telemetry ingester on its own consumer group, without an HTTP server. */
  public static TelemetryIngester ingester(Vertx vertx, String kafka, String prefix, String postgresUrl, String... extra) {
    Map<String, String> f = new HashMap<>();
    f.put("kafka-bootstrap", kafka);
    f.put("topic-prefix", prefix);
    f.put("postgres-url", postgresUrl);
    f.put("consumer-group", prefix + "ingester");
    f.put("metrics-port", "0");
    put(f, extra);
    return await(TelemetryIngester.start(vertx, IngesterConfig.from(Settings.of(f, Map.of()))));
  }

  /** {@code postgresql://user@127.0.0.1:port/database}, the ingester's URL form. */
  public static String postgresUrl(int port, String database, String user) {
    return "postgresql://" + user + "@127.0.0.1:" + port + "/" + database;
  }

  private static void put(Map<String, String> f, String... extra) {
    if (extra.length % 2 != 0) {
      throw new IllegalArgumentException("flags come in name/value pairs: got " + extra.length + " strings");
    }
    for (int i = 0; i < extra.length; i += 2) {
      if (extra[i + 1] == null) {
        f.remove(extra[i]); // a flag the defaults above set, left out
      } else {
        f.put(extra[i], extra[i + 1]);
      }
      if (extra[i].equals("allow-plaintext-keys")) {
        f.remove("master-key"); // a test of keys in clear
      }
    }
  }

  /** The result of {@code f}, waiting at most two minutes. */
  public static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out after 120 s", e);
    }
  }

  /** Polls {@code condition} every 50 ms until it holds; fails naming {@code what} after {@code timeout}. */
  public static void until(String what, BooleanSupplier condition, Duration timeout) {
    until(() -> what, condition, timeout);
  }

  /**
   * Like {@link #until(String, BooleanSupplier, Duration)} with a message made at failure time. A
   * condition that fails an assertion (a 404 before the edge knows the app) counts as not yet; the last
   * such failure is the cause of the timeout.
   */
  public static void until(Supplier<String> what, BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    AssertionError last = null;
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (AssertionError notYet) {
        last = notYet;
      }
      if (System.nanoTime() > deadline) {
        AssertionError e = new AssertionError("not within " + timeout.toSeconds() + " s: " + what.get());
        if (last != null) {
          e.initCause(last);
        }
        throw e;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for: " + what.get(), e);
      }
    }
  }
}
