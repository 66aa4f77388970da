package dev.updraft.controlplane.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.embedded.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.server.policy.CreateTopicPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a cluster whose topic policy refuses Updraft's 8 MiB record limit (as a managed Kafka service may), the
 * control plane still creates its events topic, with the cluster's limit, and its writer then limits events
 * by it: the start does not fail.
 */
class TopicSetupPolicyIT {

  /** A managed service's rule: no topic may take records above 2 MiB. */
  public static final class CappedRecords implements CreateTopicPolicy {
    @Override
    public void validate(RequestMetadata request) {
      String limit = request.configs().get("max.message.bytes");
      if (limit != null && Long.parseLong(limit) > 2 * 1024 * 1024) {
        throw new PolicyViolationException("max.message.bytes above 2097152 is not allowed on this plan: " + limit);
      }
    }

    @Override
    public void configure(Map<String, ?> configs) {}

    @Override
    public void close() {}
  }

  @Test
  void aClusterRefusingTheLargerRecordLimitGetsTheTopicWithItsOwnAndTheWriterFollowsIt(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, 0, Map.of("create.topic.policy.class.name", CappedRecords.class.getName()))) {
      String bootstrap = kafka.bootstrapServers();
      String events = "capped.updraft.events";
      TopicSetup.ensure(bootstrap, List.of(
          new TopicSetup.Spec(events, 3, Map.of("retention.ms", "-1", "max.message.bytes", Integer.toString(EventLog.RECORD_LIMIT_BYTES))),
          new TopicSetup.Spec("capped.updraft.snapshots", 1, Map.of("cleanup.policy", "compact", "max.message.bytes", "1048576"))),
          events, 0, 0, Duration.ofSeconds(30));

      try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, events);
        Config c = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
        assertThat(c.get("max.message.bytes").value()).as("the cluster's default").isEqualTo("1048588");
        assertThat(c.get("retention.ms").value()).as("the other settings kept").isEqualTo("-1");
        ConfigResource snapshots = new ConfigResource(ConfigResource.Type.TOPIC, "capped.updraft.snapshots");
        assertThat(admin.describeConfigs(List.of(snapshots)).all().get(30, TimeUnit.SECONDS).get(snapshots).get("max.message.bytes").value())
            .as("a limit the policy allows is kept").isEqualTo("1048576");
      }
      try (EventLog log = new EventLog(bootstrap, KafkaClientConfig.none(), events, "capped-writer")) {
        log.startWriter(Duration.ofSeconds(30));
        assertThat(log.maxEventBytes()).as("Kafka's 1 MiB less the framing").isEqualTo(1_048_588 - 16 * 1024);
      }
    }
  }
}
