package dev.updraft.edge.checkin;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInBinary;
import dev.updraft.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Check-ins to Kafka, keyed by client id. The producer is configured not to lose what it accepted
 * through a broker outage of minutes: idempotent, {@code acks=all}, retried until a five-minute delivery
 * timeout, with 64 MiB of buffer. Check-ins are not urgent, so batches linger up to 100 ms: at high
 * request rates that makes a few large produce requests instead of many small ones (measured: a third of
 * the broker and network-thread CPU of 10 ms batches). When that buffer is full, {@code send} blocks the sender thread (up to
 * a minute), the check-in queue fills, and the event loops drop and count instead of waiting.
 */
final class KafkaSink implements Sink {
  private final String topic;
  private final KafkaProducer<String, byte[]> producer;
  /** Used by the sender thread only; null when writing the compact form. */
  private final CheckInJson json;
  /** Used by the sender thread only; null when writing JSON. */
  private final CheckInBinary compact;
  /**
   * Per lane, the record's headers: none for a device's check-in, the warm-up's mark for the warm-up's; an
   * empty set rather than null, so that the producer takes the same path for both (the wire bytes are the
   * same: a record without headers). The producer copies them into each record.
   */
  private final Headers[] headersBy;

  KafkaSink(String bootstrap, KafkaClientConfig kafka, String topic, String clientId, long bufferBytes, boolean compact) {
    this.topic = topic;
    this.json = compact ? null : new CheckInJson();
    this.compact = compact ? new CheckInBinary() : null;
    this.headersBy = new Headers[] {new RecordHeaders(), new RecordHeaders().add(Topics.WARMUP_HEADER, clientId.getBytes(StandardCharsets.UTF_8))};
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    p.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(bufferBytes));
    p.put(ProducerConfig.LINGER_MS_CONFIG, "100");
    // 1 MiB batches, fewer when the buffer is small: a batch takes batch.size of the buffer when it starts
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Long.toString(Math.max(16 << 10, Math.min(1 << 20, bufferBytes / 16))));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    this.producer = new KafkaProducer<>(kafka.apply(p));
  }

  /** Per lane, the producer callback reporting to the lane's delivery consumer ({@link #deliveries}). */
  private Callback[] callbacks = new Callback[0];

  @Override
  public void deliveries(List<Consumer<Exception>> byLane) {
    Callback[] made = new Callback[byLane.size()];
    for (int i = 0; i < made.length; i++) {
      Consumer<Exception> done = byLane.get(i);
      made[i] = (md, e) -> done.accept(e);
    }
    callbacks = made;
  }

  @Override
  public void send(CheckIn c, int lane) {
    byte[] value = compact != null ? compact.encode(c) : json.encode(c);
    producer.send(new ProducerRecord<>(topic, null, c.clientId(), value, headersBy[lane]), callbacks[lane]);
  }

  @Override
  public void close(Duration timeout) {
    producer.close(timeout);
  }
}
