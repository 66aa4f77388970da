package dev.updraft.controlplane.log;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How large an event the events topic takes. Updraft creates the topic with {@link #UPDRAFT} bytes per record
 * ({@code max.message.bytes}) and its producer sends up to that ({@code max.request.size}), so that a publish
 * of a large app (every asset's entry in each platform's manifest, with pre-signed URLs) or a key registration
 * re-signing many groups fits in one event. An existing topic keeps what its operator, or an older Updraft,
 * gave it: Kafka's 1 MiB by default; then events are limited by it, and the start and every refusal say how
 * to raise it.
 *
 * @param topic the events topic
 * @param topicBytes the topic's {@code max.message.bytes}
 */
record RecordLimit(String topic, int topicBytes) {
  private static final Logger LOG = LoggerFactory.getLogger(RecordLimit.class);

  /** The record limit Updraft creates the events topic with and its producer's {@code max.request.size}: 8 MiB. */
  static final int UPDRAFT = 8 * 1024 * 1024;

  /** Kafka's default {@code max.message.bytes}. */
  static final int KAFKA_DEFAULT = 1_048_588;

  /** Room left below a record limit for the key and the record's and batch's framing. */
  static final int FRAMING_BYTES = 16 * 1024;

  static RecordLimit kafkaDefault() {
    return new RecordLimit(null, KAFKA_DEFAULT);
  }

  /** The limit of {@code topic} as its brokers apply it; Kafka's default (with a warning) when it cannot be read. */
  static RecordLimit read(Admin admin, String topic) {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    int bytes;
    try {
      ConfigEntry e = admin.describeConfigs(List.of(r)).all().get(10, TimeUnit.SECONDS).get(r).get("max.message.bytes");
      bytes = e == null || e.value() == null ? KAFKA_DEFAULT : Integer.parseInt(e.value());
    } catch (ExecutionException | TimeoutException | NumberFormatException e) {
      LOG.warn("cannot read max.message.bytes of topic={} ({}): assuming Kafka's default of {} bytes", topic,
          e instanceof ExecutionException ? e.getCause() : e, KAFKA_DEFAULT);
      bytes = KAFKA_DEFAULT;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the configuration of topic=" + topic, e);
    }
    RecordLimit limit = new RecordLimit(topic, bytes);
    if (bytes < UPDRAFT) {
      LOG.warn("topic={} takes records up to max.message.bytes={}: events are limited to {} bytes, and a publish of a large app"
              + " or a key registration re-signing many groups is refused (413 event-too-large){}",
          topic, bytes, limit.maxEventBytes(), limit.raiseHint());
    }
    return limit;
  }

  /** The largest encoded event the log takes: the topic's limit or Updraft's, whichever is smaller, less the framing. */
  int maxEventBytes() {
    return Math.max(FRAMING_BYTES, Math.min(topicBytes, UPDRAFT) - FRAMING_BYTES);
  }

  /** What to do about a topic whose limit is below Updraft's, as sentences to append to one without its full stop; empty when it is not. */
  String raiseHint() {
    if (topic == null || topicBytes >= UPDRAFT) {
      return "";
    }
    return ". The topic's max.message.bytes is " + topicBytes + "; Updraft creates it with " + UPDRAFT
        + ": kafka-configs.sh --bootstrap-server <broker> --alter --entity-type topics --entity-name " + topic
        + " --add-config max.message.bytes=" + UPDRAFT + ", then restart the control plane";
  }
}
