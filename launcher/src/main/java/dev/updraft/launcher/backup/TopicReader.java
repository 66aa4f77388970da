package dev.updraft.launcher.backup;

import dev.updraft.common.KafkaClientConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Copies the committed records of a topic's partitions into {@link RecordFile}s: a consumer at
 * {@code isolation.level=read_committed} (records of aborted transactions are never returned, transaction
 * markers never are), with no group, reading each partition from its log start up to the end offset taken
 * before any reading began (for a committed reader that is the last stable offset: an open transaction's
 * records stay out). Not thread-safe; closes its consumer.
 */
final class TopicReader implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Duration stall;

  /**
   * @param stall how long a partition may return nothing while short of its end before the copy gives up
   */
  TopicReader(String bootstrap, KafkaClientConfig kafka, Duration stall) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // a missing topic (snapshots turned off) must stay missing: a broker's auto-creation would make it with
    // its defaults (not compacted), and the control plane leaves existing topics as they are
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Math.max(10_000, stall.toMillis()));
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "updraft-backup-" + UUID.randomUUID().toString().substring(0, 8));
    this.consumer = new KafkaConsumer<>(kafka.apply(p), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.stall = stall;
  }

  /** The partitions of {@code topic}, sorted; empty when the topic does not exist. */
  List<TopicPartition> partitions(String topic) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic, stall);
    List<TopicPartition> out = new ArrayList<>();
    if (infos != null) {
      for (PartitionInfo i : infos) {
        out.add(new TopicPartition(topic, i.partition()));
      }
    }
    out.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
    return out;
  }

  /** The committed end (last stable offset) and the log start of each partition, now. */
  Map<TopicPartition, long[]> bounds(List<TopicPartition> tps) {
    Map<TopicPartition, long[]> out = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
    if (tps.isEmpty()) {
      return out;
    }
    Map<TopicPartition, Long> start = consumer.beginningOffsets(tps, stall);
    Map<TopicPartition, Long> end = consumer.endOffsets(tps, stall);
    for (TopicPartition tp : tps) {
      out.put(tp, new long[] {start.get(tp), end.get(tp)});
    }
    return out;
  }

  /**
   * Copies {@code tp} from {@code start} up to {@code end} into {@code file}.
   *
   * @param relative the file's path in the backup (for the manifest)
   */
  BackupManifest.Range copy(TopicPartition tp, long start, long end, Path file, String relative, Progress progress) throws IOException {
    consumer.assign(List.of(tp));
    consumer.seek(tp, start);
    long first = -1;
    long last = -1;
    long lastMove = System.nanoTime();
    String what = tp.topic() + " partition " + tp.partition();
    try (RecordFile.Writer w = new RecordFile.Writer(file)) {
      long position = start;
      while (position < end) {
        boolean moved = false;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() >= end) {
            break; // committed after the backup began: not part of it
          }
          w.write(new RecordFile.Rec(r.offset(), r.timestamp(), r.key(), r.value(), headers(r)));
          first = first < 0 ? r.offset() : first;
          last = r.offset();
          moved = true;
        }
        long now = consumer.position(tp);
        if (now > position) {
          moved = true;
          position = now;
        }
        if (moved) {
          lastMove = System.nanoTime();
        } else if (System.nanoTime() - lastMove > stall.toNanos()) {
          throw new Refusal("reading " + what + " stalled at offset " + position + " of " + end + " for " + stall
              + " (brokers unreachable, or the partition has no leader); nothing was written to the manifest");
        }
        progress.tick(what, Math.min(position, end) - start, end - start, "offsets");
      }
      long records = w.count();
      return new BackupManifest.Range(tp.partition(), start, end, records, first, last, (end - start) - records, relative);
    }
  }

  private static List<RecordFile.Header> headers(ConsumerRecord<byte[], byte[]> r) {
    List<RecordFile.Header> out = new ArrayList<>();
    for (Header h : r.headers()) {
      out.add(new RecordFile.Header(h.key(), h.value()));
    }
    return out;
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
