package dev.updraft.controlplane.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's reading of {@code updraft.events}: one {@code read_committed} consumer assigned to every
 * partition (no consumer group), first for the replay at start ({@link #replay}), then to read back each of the
 * writer's commits ({@link #awaitOwn}). It waits for the records' offsets rather than for the end offsets, because
 * commit markers are written after {@code commitTransaction} returns. Not thread-safe: the command thread owns it.
 */
final class LogReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LogReader.class);

  private final String bootstrap;
  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private List<TopicPartition> partitions = List.of();

  /** @param props the consumer's properties ({@code read_committed}, no auto commit) */
  LogReader(String bootstrap, String topic, Properties props) {
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * Reads the log from where {@code start} says (given the partition ids, the offset to start each at; 0
   * for a partition it does not name) to its end as of now, handing every record to {@code sink}.
   *
   * @return the number of records read
   */
  long replay(Function<List<Integer>, Map<Integer, Long>> start, Consumer<ConsumerRecord<String, byte[]>> sink, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<PartitionInfo> infos = List.of();
    while (infos.isEmpty()) {
      infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
      if (infos.isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic=" + topic + " has no partitions at bootstrap=" + bootstrap);
        }
        EventLog.sleepQuietly(100);
      }
    }
    List<TopicPartition> tps = new ArrayList<>();
    for (PartitionInfo i : infos) {
      tps.add(new TopicPartition(topic, i.partition()));
    }
    partitions = List.copyOf(tps);
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    List<Integer> ids = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      ids.add(tp.partition());
    }
    Map<Integer, Long> from = start.apply(ids);
    for (TopicPartition tp : partitions) {
      long at = from.getOrDefault(tp.partition(), 0L);
      if (at > 0) {
        consumer.seek(tp, at);
      }
    }
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
    long n = 0;
    while (!reached(end)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "replay of topic=" + topic + " did not reach the end offsets=" + end + " within " + timeout + " (read " + n + " records)");
      }
      ConsumerRecords<String, byte[]> rs = consumer.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, byte[]> r : rs) {
        sink.accept(r);
        n++;
      }
    }
    LOG.info("replayed topic={} records={} from={} endOffsets={}", topic, n, from, end);
    return n;
  }

  /**
   * Reads until every record in {@code written} has been read back (handing everything read to
   * {@code sink}, in order).
   */
  void awaitOwn(List<RecordMetadata> written, Consumer<ConsumerRecord<String, byte[]>> sink, Duration timeout)
      throws LogWriteException {
    Map<TopicPartition, Long> need = new HashMap<>();
    for (RecordMetadata m : written) {
      need.merge(new TopicPartition(m.topic(), m.partition()), m.offset() + 1, Math::max);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!reached(need)) {
      if (System.nanoTime() > deadline) {
        throw new LogWriteException(
            LogWriteException.Kind.UNCERTAIN,
            "committed records were not readable within " + timeout + ": need offsets=" + need,
            null);
      }
      ConsumerRecords<String, byte[]> rs = consumer.poll(Duration.ofMillis(50));
      for (ConsumerRecord<String, byte[]> r : rs) {
        sink.accept(r);
      }
    }
  }

  private boolean reached(Map<TopicPartition, Long> targets) {
    for (Map.Entry<TopicPartition, Long> t : targets.entrySet()) {
      if (consumer.position(t.getKey()) < t.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    try {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    } catch (RuntimeException e) {
      LOG.warn("closing consumer: {}", e.toString());
    }
  }
}
