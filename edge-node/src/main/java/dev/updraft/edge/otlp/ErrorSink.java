package dev.updraft.edge.otlp;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.events.ErrorReport;
import dev.updraft.events.ErrorReportCodec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Error reports to {@code updraft.errors}, keyed by client id: a producer of its own (idempotent, {@code acks=all},
 * 16 MiB of buffer), so that a flood of reports never takes the check-ins' buffer. Called from worker threads only;
 * a full buffer waits at most 100 ms, then the report is dropped and counted
 * ({@code updraft_edge_error_reports_dropped_total{reason}}); acknowledged ones are
 * {@code updraft_edge_error_reports_sent_total}. Thread-safe.
 */
public final class ErrorSink implements AutoCloseable {
  private final String topic;
  private final KafkaProducer<String, byte[]> producer;
  private final Counter sent;
  private final Counter failed;
  private final Counter full;

  public ErrorSink(String bootstrap, KafkaClientConfig kafka, String topic, String clientId, MeterRegistry registry) {
    this.topic = topic;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-errors");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "100");
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(16L << 20));
    p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    this.producer = new KafkaProducer<>(kafka.apply(p));
    this.sent = Counter.builder("updraft.edge.error.reports.sent").description("Error reports acknowledged by Kafka").register(registry);
    this.failed = dropped(registry, "delivery-failed");
    this.full = dropped(registry, "buffer-full");
  }

  private static Counter dropped(MeterRegistry registry, String reason) {
    return Counter.builder("updraft.edge.error.reports.dropped").description("Error reports lost, by reason").tag("reason", reason)
        .register(registry);
  }

  /** Sends {@code r} (may wait up to 100 ms for buffer space: call off the event loop). */
  public void send(ErrorReport r) {
    try {
      producer.send(new ProducerRecord<>(topic, r.clientId(), ErrorReportCodec.encode(r)), (md, e) -> (e == null ? sent : failed).increment());
    } catch (org.apache.kafka.common.KafkaException e) {
      full.increment();
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
