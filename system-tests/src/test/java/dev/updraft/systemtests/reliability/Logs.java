package dev.updraft.systemtests.reliability;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reading what the system wrote: a Kafka topic from its start to its end, and PostgreSQL. */
public final class Logs {
  private Logs() {}

  /** Every record of {@code topic} ({@code read_committed}), from offset 0 to the end offsets of now. */
  public static void readAll(String bootstrap, String topic, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
    readAll(bootstrap, topic, "read_committed", sink);
  }

  /**
   * The idempotency keys of the {@code update.published} and roll back events of {@code appId} a {@code read_uncommitted} reader
   * sees: those of transactions not committed (yet, or ever) too.
   */
  public static java.util.Set<String> uncommittedKeys(String bootstrap, String prefix, String appId) {
    java.util.Set<String> out = new java.util.HashSet<>();
    readAll(bootstrap, dev.updraft.events.Topics.events(prefix), "read_uncommitted", r -> {
      if (r.value() == null) {
        return;
      }
      dev.updraft.events.Decoded d = dev.updraft.events.EventCodec.decode(r.value());
      if (d instanceof dev.updraft.events.Decoded.Known) {
        dev.updraft.events.EventEnvelope e = ((dev.updraft.events.Decoded.Known) d).envelope();
        if (e.appId().equals(appId) && e.payload() instanceof dev.updraft.events.EventPayload.UpdatePublished u) {
          out.add(u.group().idempotencyKey());
        } else if (e.appId().equals(appId) && e.payload() instanceof dev.updraft.events.EventPayload.RolledBackToEmbedded rb) {
          out.add(rb.group().idempotencyKey());
        }
      }
    });
    return out;
  }

  private static void readAll(String bootstrap, String topic, String isolation, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(30))) {
        tps.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " to its end offsets " + end + " within 60 s");
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            sink.accept(r);
          }
        }
      }
    }
  }

  /** Every device check-in on {@code topic} (not the ones an edge sent marked as its warm-up). */
  public static List<CheckIn> checkIns(String bootstrap, String topic) {
    List<CheckIn> out = new ArrayList<>();
    readAll(bootstrap, topic, r -> {
      if (r.headers().lastHeader(dev.updraft.events.Topics.WARMUP_HEADER) != null) {
        return; // an edge's warm-up, not a device (ingesters skip these too)
      }
      try {
        out.add(CheckInCodec.decode(r.value()));
      } catch (IOException e) {
        throw new UncheckedIOException("not a check-in at " + r.topic() + "/" + r.partition() + "@" + r.offset(), e);
      }
    });
    return out;
  }

  /** Every event of {@code appId} on the events topic, in sequence order. */
  public static List<dev.updraft.events.EventEnvelope> events(String bootstrap, String prefix, String appId) {
    List<dev.updraft.events.EventEnvelope> out = new ArrayList<>();
    readAll(bootstrap, dev.updraft.events.Topics.events(prefix), r -> {
      dev.updraft.events.Decoded d = dev.updraft.events.EventCodec.decode(r.value());
      if (!(d instanceof dev.updraft.events.Decoded.Known)) {
        throw new AssertionError("not a known event at " + r.partition() + "@" + r.offset() + ": " + d);
      }
      dev.updraft.events.EventEnvelope e = ((dev.updraft.events.Decoded.Known) d).envelope();
      if (e.appId().equals(appId)) {
        out.add(e);
      }
    });
    out.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
    return out;
  }

  /** The end offsets of {@code topic}, by partition. */
  public static Map<Integer, Long> endOffsets(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(30))) {
        tps.add(new TopicPartition(topic, i.partition()));
      }
      Map<Integer, Long> out = new HashMap<>();
      c.endOffsets(tps, Duration.ofSeconds(30)).forEach((tp, o) -> out.put(tp.partition(), o));
      return out;
    }
  }

  /** {@code client_id -> check_ins} of the device registry of {@code appId}. */
  public static Map<String, Long> deviceCheckIns(String jdbcUrl, String user, String appId) {
    Map<String, Long> out = new HashMap<>();
    query(jdbcUrl, user, "SELECT client_id, check_ins FROM devices WHERE app_id = '" + appId + "'",
        rs -> out.put(rs.getString(1), rs.getLong(2)));
    return out;
  }

  /** A row callback that may throw {@link SQLException}. */
  @FunctionalInterface
  public interface Row {
    void accept(ResultSet rs) throws SQLException;
  }

  /** Runs {@code sql} and hands each row to {@code row}. */
  public static void query(String jdbcUrl, String user, String sql, Row row) {
    try (Connection c = DriverManager.getConnection(jdbcUrl, user, "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        row.accept(rs);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("query failed: " + sql + ": " + e.getMessage(), e);
    }
  }
}
