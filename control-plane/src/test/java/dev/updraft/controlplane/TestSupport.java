package dev.updraft.controlplane;

import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Starting control planes against the test Kafka and reading the event log back. */
final class TestSupport {
  static final String ADMIN = "test-admin-token-0123456789";

  private TestSupport() {}

  /** A configuration on the test's Kafka and topic prefix, any free port, data under {@code dir}. */
  static ControlPlaneConfig config(Infra infra, Path dir, String... extra) {
    Map<String, String> flags = new HashMap<>();
    flags.put("kafka-bootstrap", infra.kafkaBootstrap());
    flags.put("topic-prefix", infra.topicPrefix());
    flags.put("control-port", "0");
    flags.put("bind", "127.0.0.1");
    flags.put("admin-token", ADMIN);
    flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    flags.put("data-dir", dir.toString());
    flags.put("asset-encoding", "fast"); // low levels unless a test asks for the default (PublishIT)
    for (int i = 0; i < extra.length; i += 2) {
      flags.put(extra[i], extra[i + 1]);
      if (extra[i].equals("allow-plaintext-keys") || extra[i].equals("master-key") && extra[i + 1] == null) {
        flags.remove("master-key"); // a test of a control plane without a master key
      }
    }
    flags.values().removeIf(java.util.Objects::isNull);
    return ControlPlaneConfig.from(Settings.of(flags, Map.of()));
  }

  static ControlPlane start(Vertx vertx, ControlPlaneConfig config) {
    return await(ControlPlane.start(vertx, config));
  }

  static ControlPlane start(Vertx vertx, ControlPlaneConfig config, Hooks hooks) {
    return await(ControlPlane.start(vertx, config, List.of(), hooks));
  }

  static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out", e);
    }
  }

  /** Every committed event on the test's events topic (all apps), in partition order. */
  static List<EventEnvelope> events(Infra infra) {
    return events(infra, Topics.events(infra.topicPrefix()), null);
  }

  /** The committed events of {@code appId} (every app's when null) on {@code topic}, in sequence order per app. */
  static List<EventEnvelope> events(Infra infra, String topic, String appId) {
    List<EventEnvelope> out = new ArrayList<>();
    read(infra, topic, (r, e) -> {
      if (appId == null || appId.equals(e.appId())) {
        out.add(e);
      }
    });
    if (appId != null) {
      out.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
    }
    return out;
  }

  /** The value of the header {@link Topics#MORE_HEADER} of each committed event of {@code appId} by sequence ("" where absent). */
  static Map<Long, String> moreHeaders(Infra infra, String topic, String appId) {
    Map<Long, String> out = new TreeMap<>();
    read(infra, topic, (r, e) -> {
      if (appId.equals(e.appId())) {
        Header h = r.headers().lastHeader(Topics.MORE_HEADER);
        out.put(e.sequence(), h == null ? "" : new String(h.value(), StandardCharsets.US_ASCII));
      }
    });
    return out;
  }

  /** Reads every committed record of {@code topic} to its end offsets, each with its decoded event. */
  private static void read(Infra infra, String topic, BiConsumer<ConsumerRecord<String, byte[]>, EventEnvelope> sink) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(10))) {
        tps.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        boolean done = true;
        for (TopicPartition tp : tps) {
          if (c.position(tp) < end.get(tp)) {
            done = false;
          }
        }
        if (done) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read topic " + topic + " to its end");
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(100))) {
          Decoded d = EventCodec.decode(r.value());
          if (!(d instanceof Decoded.Known)) {
            throw new IllegalStateException("not a known event at offset " + r.offset() + ": " + d);
          }
          sink.accept(r, ((Decoded.Known) d).envelope());
        }
      }
    }
  }

  /** The events of one app, in sequence order. */
  static List<EventEnvelope> events(Infra infra, String appId) {
    return events(infra, Topics.events(infra.topicPrefix()), appId);
  }


  static Vertx vertx() {
    return Vertx.vertx();
  }

  /** One sample of a control plane's {@code /metrics} (an exact series, labels included when it has them), or 0 when absent. */
  static double metric(Http http, String series) {
    for (String line : http.get("/metrics").text().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }
}
