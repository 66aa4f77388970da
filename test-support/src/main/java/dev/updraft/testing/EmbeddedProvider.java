package dev.updraft.testing;

import dev.updraft.embedded.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * Kafka through {@code KafkaClusterTestKit} in this JVM, PostgreSQL 17 from zonky, and S3Proxy in a child
 * JVM (started only when a test asks for a bucket).
 */
final class EmbeddedProvider implements Provider {
  private final KafkaClusterTestKit kafka;
  private final EmbeddedPostgresServer pg;
  private final Path pgDir;
  private S3ProxyServer s3;
  private boolean closed;

  EmbeddedProvider() {
    // PostgreSQL starts on another thread while Kafka does (a couple of seconds less for every test JVM)
    try {
      pgDir = Files.createTempDirectory("updraft-test-pg");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a directory for the test PostgreSQL: " + e.getMessage(), e);
    }
    CompletableFuture<EmbeddedPostgresServer> starting =
        CompletableFuture.supplyAsync(() -> EmbeddedPostgresServer.start(pgDir, 0, false));
    try {
      kafka =
          new KafkaClusterTestKit.Builder(
                  new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
              .setConfigProp("offsets.topic.replication.factor", "1")
              .setConfigProp("offsets.topic.num.partitions", "4")
              .setConfigProp("transaction.state.log.replication.factor", "1")
              .setConfigProp("transaction.state.log.min.isr", "1")
              .setConfigProp("transaction.state.log.num.partitions", "4")
              .setConfigProp("share.coordinator.state.topic.replication.factor", "1")
              .setConfigProp("share.coordinator.state.topic.min.isr", "1")
              .setConfigProp("group.initial.rebalance.delay.ms", "0")
              .setConfigProp("auto.create.topics.enable", "false")
              .build();
      kafka.format();
      kafka.startup();
      kafka.waitForReadyBrokers();
    } catch (Exception e) {
      starting.thenAccept(EmbeddedPostgresServer::close); // no PostgreSQL left running without its Kafka
      throw new IllegalStateException("cannot start test Kafka: " + e.getMessage(), e);
    }
    try {
      pg = starting.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  @Override
  public String kafkaBootstrap() {
    return kafka.bootstrapServers();
  }

  @Override
  public String pgHost() {
    return "127.0.0.1";
  }

  @Override
  public int pgPort() {
    return pg.port();
  }

  @Override
  public String pgUser() {
    return EmbeddedPostgresServer.USER;
  }

  @Override
  public String pgPassword() {
    return "";
  }

  @Override
  public synchronized S3Server s3() {
    if (s3 == null) {
      s3 = new S3ProxyServer();
    }
    return s3;
  }

  @Override
  public void createDatabase(String name) {
    pg.createDatabase(name);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return; // KafkaClusterTestKit.close() is not idempotent
    }
    closed = true;
    try {
      kafka.close();
    } catch (Exception e) {
      // the JVM is ending; a failing broker shutdown must not hide the test results
      System.err.println("test Kafka did not close cleanly: " + e);
    }
    pg.close();
    deleteTree(pgDir);
    if (s3 != null) {
      s3.close();
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
