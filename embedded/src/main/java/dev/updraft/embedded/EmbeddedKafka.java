package dev.updraft.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka (KRaft, combined broker and controller) running in this JVM, with its logs in a
 * directory of ours. Stopping and starting again on the same directory keeps every topic and record.
 * Not thread-safe: start and stop from one thread.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

  private final Path dataDir;
  private final int port;
  private final int controllerPort;
  /** Broker settings over the defaults below (tests: a topic policy, as a managed service has). */
  private final Map<String, String> overrides;
  private KafkaRaftServer server;

  private EmbeddedKafka(Path dataDir, int port, int controllerPort, Map<String, String> overrides) {
    this.dataDir = dataDir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.overrides = Map.copyOf(overrides);
  }

  /**
   * Formats {@code dataDir} if it is new, then starts the broker and waits until it answers.
   *
   * @param port the client port on 127.0.0.1, 0 for a free one
   * @param controllerPort the KRaft controller port on 127.0.0.1, 0 for a free one
   */
  public static EmbeddedKafka start(Path dataDir, int port, int controllerPort) {
    return start(dataDir, port, controllerPort, Map.of());
  }

  /** As {@link #start(Path, int, int)}, with broker settings {@code overrides} over the defaults. */
  public static EmbeddedKafka start(Path dataDir, int port, int controllerPort, Map<String, String> overrides) {
    EmbeddedKafka k =
        new EmbeddedKafka(
            dataDir, port == 0 ? Ports.freePort() : port, controllerPort == 0 ? Ports.freePort() : controllerPort, overrides);
    k.startServer();
    return k;
  }

  /** {@code 127.0.0.1:port}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public boolean running() {
    return server != null;
  }

  /** Starts the broker again on the same data and ports after {@link #stop()}. */
  public void restart() {
    if (server != null) {
      throw new IllegalStateException("kafka already running on port=" + port);
    }
    startServer();
  }

  /** Stops the broker; data stays. */
  public void stop() {
    if (server == null) {
      return;
    }
    long t0 = System.nanoTime();
    server.shutdown();
    server.awaitShutdown();
    server = null;
    LOG.info("kafka stopped port={} in {} ms", port, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  @Override
  public void close() {
    stop();
  }

  private void startServer() {
    long t0 = System.nanoTime();
    Path logDir = dataDir.resolve("kafka-logs");
    KafkaConfig config = new KafkaConfig(serverProperties(logDir), false);
    try {
      Files.createDirectories(logDir);
      if (!Files.exists(logDir.resolve("meta.properties"))) {
        format(config, logDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare kafka log dir " + logDir, e);
    }
    KafkaRaftServer s = new KafkaRaftServer(config, Time.SYSTEM);
    s.startup();
    server = s;
    awaitReady();
    LOG.info(
        "kafka ready at {} (data {}) in {} ms",
        bootstrapServers(),
        logDir,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  private Map<String, Object> serverProperties(Path logDir) {
    Map<String, Object> p = new HashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("metadata.log.dir", logDir.toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "4");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "false");
    p.put("num.partitions", "4");
    p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
    p.put("log.cleaner.dedupe.buffer.size", "2097152");
    p.put("controlled.shutdown.enable", "false");
    // a restarted single node re-registers as soon as its previous session lapses
    p.put("broker.heartbeat.interval.ms", "500");
    p.put("broker.session.timeout.ms", "2500");
    p.putAll(overrides);
    return p;
  }

  private void format(KafkaConfig config, Path logDir) {
    try {
      new Formatter()
          .setPrintStream(System.out)
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setNodeId(1)
          .setClusterId(Uuid.randomUuid().toString())
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logDir.toString())
          .setDirectories(List.of(logDir.toString()))
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .setUnstableFeatureVersionsEnabled(false)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot format kafka storage at " + logDir + ": " + e.getMessage(), e);
    }
  }

  private void awaitReady() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = Admin.create(p)) {
      while (true) {
        try {
          if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (Exception e) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("kafka at " + bootstrapServers() + " not ready after 60 s", e);
          }
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for kafka at " + bootstrapServers(), e);
    }
  }
}
