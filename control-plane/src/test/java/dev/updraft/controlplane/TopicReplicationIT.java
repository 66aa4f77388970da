package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.log.TopicSetup;
import dev.updraft.testing.KafkaCluster;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * On a cluster of three brokers the control plane creates its topics replicated three times with
 * {@code min.insync.replicas=2}, or as {@code --replication-factor} / {@code --min-insync-replicas} say;
 * refuses to start when asked for more replicas than there are brokers; and warns at start when an
 * existing {@code updraft.events} has a single replica.
 */
class TopicReplicationIT {
  static KafkaCluster cluster;
  static Vertx vertx;

  @BeforeAll
  static void start() {
    cluster = KafkaCluster.start(3);
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    TestSupport.await(vertx.close());
    cluster.close();
  }

  @Test
  void topicsAreCreatedWithThreeReplicasAndTwoInSyncByDefault(@TempDir Path dir) throws Exception {
    ControlPlane cp = TestSupport.start(vertx, config("dflt.", dir));
    try {
      for (String topic : List.of("dflt.updraft.events", "dflt.updraft.telemetry")) {
        assertThat(replicas(topic)).as(topic).isEqualTo(3);
        assertThat(topicConfig(topic, "min.insync.replicas")).as(topic).isEqualTo("2");
      }
      assertThat(topicConfig("dflt.updraft.events", "retention.ms")).isEqualTo("-1");
    } finally {
      TestSupport.await(cp.close());
    }
  }

  @Test
  void theFlagsChooseTheReplicationAndTooManyReplicasStopTheStartNamingTheFlag(@TempDir Path dir) throws Exception {
    ControlPlane cp = TestSupport.start(vertx, config("two.", dir.resolve("a"), "replication-factor", "2", "min-insync-replicas", "1"));
    try {
      assertThat(replicas("two.updraft.events")).isEqualTo(2);
      assertThat(topicConfig("two.updraft.events", "min.insync.replicas")).isEqualTo("1");
    } finally {
      TestSupport.await(cp.close());
    }
    assertThatThrownBy(() -> TestSupport.start(vertx, config("four.", dir.resolve("b"), "replication-factor", "4")))
        .hasMessageContaining("--replication-factor 4")
        .hasMessageContaining("has 3");
    try (Admin admin = cluster.admin()) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).noneMatch(t -> t.startsWith("four."));
    }
  }

  @Test
  void anExistingEventsTopicWithOneReplicaIsWarnedAboutAndLeftAsItIs(@TempDir Path dir) throws Exception {
    try (Admin admin = cluster.admin()) {
      admin.createTopics(List.of(new NewTopic("single.updraft.events", 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Logger logger = (Logger) LoggerFactory.getLogger(TopicSetup.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    ControlPlane cp = null;
    try {
      cp = TestSupport.start(vertx, config("single.", dir));
      assertThat(logged.list)
          .filteredOn(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
          .extracting(ILoggingEvent::getFormattedMessage)
          .anyMatch(m -> m.contains("topic=single.updraft.events has replication factor 1 on a cluster of 3 brokers"));
      assertThat(replicas("single.updraft.events")).as("left as the operator made it").isEqualTo(1);
      assertThat(replicas("single.updraft.telemetry")).as("the missing topic is created replicated").isEqualTo(3);
    } finally {
      logger.detachAppender(logged);
      if (cp != null) {
        TestSupport.await(cp.close());
      }
    }
  }

  private static ControlPlaneConfig config(String prefix, Path dir, String... extra) {
    Map<String, String> flags = new HashMap<>();
    flags.put("kafka-bootstrap", cluster.bootstrapServers());
    flags.put("topic-prefix", prefix);
    flags.put("control-port", "0");
    flags.put("bind", "127.0.0.1");
    flags.put("admin-token", TestSupport.ADMIN);
    flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    flags.put("data-dir", dir.toString());
    for (int i = 0; i < extra.length; i += 2) {
      flags.put(extra[i], extra[i + 1]);
    }
    return ControlPlaneConfig.from(Settings.of(flags, Map.of()));
  }

  private static int replicas(String topic) {
    TopicDescription d = cluster.describe(topic);
    return d.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElseThrow();
  }

  private static String topicConfig(String topic, String name) throws Exception {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin = cluster.admin()) {
      Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
      return c.get(name).value();
    }
  }
}
