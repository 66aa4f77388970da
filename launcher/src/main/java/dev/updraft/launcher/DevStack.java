package dev.updraft.launcher;

import dev.updraft.common.ConfigException;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.embedded.Ports;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.TelemetryIngester;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything of {@code ./updraft dev} in this process: embedded Kafka and PostgreSQL with their data
 * under the data dir, the control plane, the telemetry ingester and one edge node. Start with
 * {@link #start}; {@link #close} stops everything in reverse order and leaves nothing running.
 */
final class DevStack implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevStack.class);
  static final String DATABASE = "updraft";

  final DevConfig config;
  final String adminToken;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private EmbeddedKafka kafka;
  private EmbeddedPostgresServer postgres;
  private Vertx vertx;
  private ControlPlane controlPlane;
  private TelemetryIngester ingester;
  private EdgeNode edge;
  long readyMillis;
  int ingesterMetricsPort;

  private DevStack(DevConfig config, String adminToken, FileChannel lockChannel, FileLock lock) {
    this.config = config;
    this.adminToken = adminToken;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /** Validates, starts everything and waits until the edge is ready. */
  static DevStack start(DevConfig config, Map<String, String> env) {
    long t0 = System.nanoTime();
    checkPortFree("control-port", config.controlPort());
    checkPortFree("edge-port", config.edgePort());
    if (config.kafkaPort() != 0) {
      checkPortFree("kafka-port", config.kafkaPort());
    }
    if (config.postgresPort() != 0) {
      checkPortFree("postgres-port", config.postgresPort());
    }
    Path dir = prepareDataDir(config.dataDir());
    FileChannel ch;
    FileLock lock;
    try {
      ch = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      lock = ch.tryLock();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + dir.resolve(".lock"), e);
    }
    if (lock == null) {
      throw new ConfigException("another updraft dev is running on --data-dir " + dir + " (it holds " + dir.resolve(".lock") + ")");
    }
    String token = config.adminToken() != null ? config.adminToken() : DevSecrets.adminToken(dir);
    DevStack stack = new DevStack(config, token, ch, lock);
    try {
      stack.startAll(env);
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
    stack.readyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    return stack;
  }

  /**
   * The control plane's flags in {@code updraft dev}: where the embedded Kafka and PostgreSQL are, and the
   * flags of {@code dev} it takes as they are (storage, guard interval, snapshot intervals, asset encoding).
   */
  static Map<String, String> controlPlaneFlags(DevConfig config, String kafkaBootstrap, String postgresUrl, String adminToken) {
    Map<String, String> cp = new LinkedHashMap<>();
    cp.put("kafka-bootstrap", kafkaBootstrap);
    kafkaConfig(config, cp);
    cp.put("control-port", Integer.toString(config.controlPort()));
    cp.put("bind", config.bind());
    cp.put("public-url", config.publicUrl());
    cp.put("edge-public-url", config.edgePublicUrl()); // launch assets (and bundle patches) through the edge
    cp.put("admin-token", adminToken);
    cp.put("data-dir", config.dataDir().toString());
    cp.put("postgres-url", postgresUrl);
    cp.putAll(config.storage()); // --storage s3 --s3-bucket ... (local storage under the data dir by default)
    cp.putAll(config.metrics()); // --metrics-token: every service's /metrics needs it
    if (config.guardInterval() != null) {
      cp.put("guard-interval", config.guardInterval());
    }
    if (config.snapshotIntervalEvents() != null) {
      cp.put("snapshot-interval-events", config.snapshotIntervalEvents());
    }
    if (config.snapshotInterval() != null) {
      cp.put("snapshot-interval", config.snapshotInterval());
    }
    if (config.assetEncoding() != null) {
      cp.put("asset-encoding", config.assetEncoding());
    }
    return cp;
  }

  /**
   * Every service's configuration as {@link #startAll} will build it, with stand-in addresses for Kafka and
   * PostgreSQL: a bad flag or environment variable (a short admin token, an unknown storage) fails here at once
   * with its service's message, not after Kafka and PostgreSQL have started.
   */
  static void checkConfigs(DevConfig config, String adminToken, Map<String, String> env) {
    String kafka = "127.0.0.1:9092";
    String postgresUrl = "postgresql://" + EmbeddedPostgresServer.USER + "@127.0.0.1:5432/" + DATABASE;
    ControlPlaneConfig.from(Settings.of(controlPlaneFlags(config, kafka, postgresUrl, adminToken), env), InsightsExtension.FLAGS);
    IngesterConfig.from(Settings.of(ingesterFlags(config, kafka, postgresUrl, 0), env));
    EdgeConfig.from(Settings.of(edgeFlags(config, kafka), env));
  }

  static Map<String, String> ingesterFlags(DevConfig config, String kafkaBootstrap, String postgresUrl, int metricsPort) {
    Map<String, String> in = new LinkedHashMap<>();
    in.put("kafka-bootstrap", kafkaBootstrap);
    kafkaConfig(config, in);
    in.put("postgres-url", postgresUrl);
    in.put("metrics-port", Integer.toString(metricsPort));
    in.put("bind", "127.0.0.1");
    in.putAll(config.metrics());
    if (config.ingestLinger() != null) {
      in.put("ingest-linger", config.ingestLinger()); // checked by the ingester's configuration
    }
    return in;
  }

  static Map<String, String> edgeFlags(DevConfig config, String kafkaBootstrap) {
    Map<String, String> ed = new LinkedHashMap<>();
    ed.put("kafka-bootstrap", kafkaBootstrap);
    kafkaConfig(config, ed);
    ed.put("edge-port", Integer.toString(config.edgePort()));
    ed.put("bind", config.bind());
    ed.put("edge-id", "dev-edge");
    ed.putAll(config.metrics());
    return ed;
  }

  /**
   * {@code --kafka-config} of {@code dev} to a service; with the embedded broker an empty value, so that an
   * {@code UPDRAFT_KAFKA_CONFIG} in the environment does not reach it (blank counts as not given).
   */
  private static void kafkaConfig(DevConfig config, Map<String, String> flags) {
    flags.put(KafkaClientConfig.FLAG, config.kafkaConfig() == null ? "" : config.kafkaConfig());
  }

  private void startAll(Map<String, String> env) {
    // private keys are sealed: with the operator's UPDRAFT_MASTER_KEY, else with one made once and kept in the data dir
    env = DevSecrets.withMasterKey(env, config.dataDir());
    checkConfigs(config, adminToken, env);
    CompletableFuture<EmbeddedPostgresServer> pg =
        CompletableFuture.supplyAsync(
            () -> {
              EmbeddedPostgresServer s = EmbeddedPostgresServer.start(config.dataDir().resolve("postgres"), config.postgresPort(), true);
              s.createDatabase(DATABASE);
              return s;
            });
    if (config.kafkaBootstrap() == null) {
      kafka = EmbeddedKafka.start(config.dataDir().resolve("kafka"), config.kafkaPort(), 0);
    }
    postgres = pg.join();
    String postgresUrl = "postgresql://" + EmbeddedPostgresServer.USER + "@127.0.0.1:" + postgres.port() + "/" + DATABASE;

    vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));

    Map<String, String> cp = controlPlaneFlags(config, kafkaBootstrap(), postgresUrl, adminToken);
    // insights routes and the automatic-revert guard (--guard-interval, default 30s) over the same PostgreSQL
    Settings cpSettings = Settings.of(cp, env);
    controlPlane =
        await(
            ControlPlane.start(
                vertx, ControlPlaneConfig.from(cpSettings, InsightsExtension.FLAGS), List.of(InsightsExtension.from(cpSettings))),
            "control plane", config.startTimeout());

    ingesterMetricsPort = Ports.freePort();
    Map<String, String> in = ingesterFlags(config, kafkaBootstrap(), postgresUrl, ingesterMetricsPort);
    ingester = await(TelemetryIngester.start(vertx, IngesterConfig.from(Settings.of(in, env))), "telemetry ingester", config.startTimeout());

    Map<String, String> ed = edgeFlags(config, kafkaBootstrap());
    edge = await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, env))), "edge node", config.startTimeout());
    long deadline = System.nanoTime() + config.startTimeout().toNanos();
    while (!edge.ready()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("edge not ready after " + config.startTimeout().toSeconds()
            + " s: it has not caught up with the event log (--start-timeout)");
      }
      sleep(20);
    }
  }

  /** The embedded broker, or the external cluster of {@code --kafka-bootstrap}. */
  String kafkaBootstrap() {
    return kafka == null ? config.kafkaBootstrap() : kafka.bootstrapServers();
  }

  int postgresPort() {
    return postgres.port();
  }

  /** Stops everything, edge first, infrastructure last. Safe to call twice. */
  @Override
  public synchronized void close() {
    if (edge != null) {
      awaitQuietly(edge.close(), "edge node");
      edge = null;
    }
    if (ingester != null) {
      awaitQuietly(ingester.close(), "telemetry ingester");
      ingester = null;
    }
    if (controlPlane != null) {
      awaitQuietly(controlPlane.close(), "control plane");
      controlPlane = null;
    }
    if (vertx != null) {
      awaitQuietly(vertx.close(), "vert.x");
      vertx = null;
    }
    if (kafka != null) {
      kafka.close();
      kafka = null;
    }
    if (postgres != null) {
      postgres.close();
      postgres = null;
    }
    try {
      if (lock.isValid()) {
        lock.release();
      }
      lockChannel.close();
    } catch (IOException e) {
      LOG.warn("cannot release the data dir lock: {}", e.toString());
    }
  }

  private static void checkPortFree(String flag, int port) {
    if (Ports.inUse(port)) {
      throw new ConfigException(
          "--" + flag + " " + port + ": something already listens on 127.0.0.1:" + port + "; stop it or pass --" + flag + " N");
    }
  }

  private static Path prepareDataDir(Path dir) {
    try {
      Files.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".write-check", "");
      Files.delete(probe);
      return dir;
    } catch (AccessDeniedException e) {
      throw new ConfigException("--data-dir " + dir + " is not writable: " + e.getMessage());
    } catch (IOException e) {
      throw new ConfigException("--data-dir " + dir + " cannot be used: " + e);
    }
  }

  private static <T> T await(io.vertx.core.Future<T> f, String what, java.time.Duration timeout) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IllegalStateException(what + " failed to start: " + cause, cause);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(what + " did not start within " + timeout.toSeconds()
          + " s (--start-timeout; a long event log replayed on a busy machine may need more)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting " + what, e);
    }
  }

  private static void awaitQuietly(io.vertx.core.Future<?> f, String what) {
    try {
      f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("{} did not stop cleanly: {}", what, e.toString());
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
