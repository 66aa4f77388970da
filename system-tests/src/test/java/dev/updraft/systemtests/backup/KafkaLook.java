package dev.updraft.systemtests.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.systemtests.support.Http;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** What a backup test looks at in Kafka and on the control plane's metrics, independently of the code under test. */
final class KafkaLook {
  private KafkaLook() {}

  private static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(p);
  }

  static Set<String> topics(String bootstrap) throws Exception {
    try (Admin a = admin(bootstrap)) {
      return a.listTopics().names().get();
    }
  }

  /** Each partition's end offset (of every record, committed or not, and transaction markers). */
  static Map<Integer, Long> ends(String bootstrap, String topic) throws Exception {
    try (Admin a = admin(bootstrap)) {
      TopicDescription d = a.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
      d.partitions().forEach(p -> ask.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      Map<Integer, Long> out = new TreeMap<>();
      a.listOffsets(ask).all().get().forEach((tp, info) -> out.put(tp.partition(), info.offset()));
      return out;
    }
  }

  /** Waits until none of {@code topics} has moved for 2 s (the services' work after the last command has landed), at most 60 s. */
  static void await(String bootstrap, List<String> topics) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    List<Map<Integer, Long>> before = new ArrayList<>();
    for (String t : topics) {
      before.add(ends(bootstrap, t));
    }
    while (true) {
      Thread.sleep(2000);
      List<Map<Integer, Long>> now = new ArrayList<>();
      for (String t : topics) {
        now.add(ends(bootstrap, t));
      }
      if (now.equals(before)) {
        return;
      }
      assertThat(System.nanoTime()).as("the topics %s settle within 60 s", topics).isLessThan(deadline);
      before = now;
    }
  }

  /** Every record value of {@code topic} as a reader at read_uncommitted sees it (aborted records included), as text. */
  static List<String> uncommittedValues(String bootstrap, String topic) throws Exception {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    Map<Integer, Long> ends = ends(bootstrap, topic);
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      ends.keySet().forEach(n -> tps.add(new TopicPartition(topic, n)));
      c.assign(tps);
      c.seekToBeginning(tps);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp.partition()))) {
        assertThat(System.nanoTime()).as("read %s to its end within 30 s", topic).isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  /** Waits until the control plane has written a snapshot, at most 60 s. */
  static void awaitWritten(String controlUrl) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (gauge(controlUrl, "updraft_control_snapshots_written_total") < 1) {
      assertThat(System.nanoTime()).as("a snapshot within 60 s").isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /** The sum of a metric's series on {@code base}'s /metrics; -1 when absent. */
  static double gauge(String base, String name) throws Exception {
    String metrics = Http.get(base + "/metrics").body();
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(metrics);
    double sum = 0;
    boolean found = false;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      found = true;
    }
    return found ? sum : -1;
  }
}
