package dev.updraft.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The test cluster behaves as a replicated production cluster does: with one of three brokers stopped,
 * an {@code acks=all} write to a topic of replication 3 and {@code min.insync.replicas=2} still succeeds
 * on the new leader; the broker comes back in sync; and a client that reaches the brokers only through
 * the proxies is cut off by them and reconnects after.
 */
class KafkaClusterIT {

  @Test
  void aStoppedLeaderIsReplacedAndCatchesUpAfterItsRestartAndTheProxiesCutClientsOff() throws Exception {
    long t0 = System.nanoTime();
    try (KafkaCluster cluster = KafkaCluster.startProxied(3)) {
      long started = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertThat(cluster.brokerIds()).containsExactly(0, 1, 2);
      try (Admin admin = cluster.admin()) {
        admin.createTopics(List.of(new NewTopic("t", 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
            .all().get(30, TimeUnit.SECONDS);
      }
      cluster.awaitInSync("t", Duration.ofSeconds(30));
      try (KafkaProducer<String, String> direct = producer(cluster.bootstrapServers());
          KafkaProducer<String, String> proxied = producer(cluster.proxiedBootstrapServers())) {
        direct.send(new ProducerRecord<>("t", "k", "before")).get(30, TimeUnit.SECONDS);
        proxied.send(new ProducerRecord<>("t", "k", "through the proxies")).get(30, TimeUnit.SECONDS);
        assertThat(cluster.proxies().values().stream().mapToLong(TcpProxy::accepted).sum()).as("connections through the proxies").isPositive();

        int leader = cluster.leader("t", 0);
        long stop0 = System.nanoTime();
        cluster.stopBroker(leader);
        RecordMetadata during = direct.send(new ProducerRecord<>("t", "k", "during")).get(60, TimeUnit.SECONDS);
        long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stop0);
        assertThat(during.offset()).isEqualTo(2);
        assertThat(cluster.leader("t", 0)).isNotEqualTo(leader).isNotNegative();
        assertThat(cluster.inSyncReplicas("t").get(0)).doesNotContain(leader).hasSize(2);

        cluster.startBroker(leader);
        cluster.awaitInSync("t", Duration.ofSeconds(60));
        assertThat(cluster.inSyncReplicas("t").get(0)).contains(leader).hasSize(3);

        cluster.proxies().values().forEach(TcpProxy::cut);
        var cut = proxied.send(new ProducerRecord<>("t", "k", "after the cut"));
        Thread.sleep(1_000);
        assertThat(cut.isDone()).as("a write through cut proxies waits").isFalse();
        cluster.proxies().values().forEach(TcpProxy::restore);
        assertThat(cut.get(60, TimeUnit.SECONDS).offset()).isEqualTo(3);
        System.out.printf("kafka cluster: 3 brokers up in %d ms; acks=all write after the leader stopped took %d ms%n",
            started, failoverMs);
      }
    }
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }
}
