package dev.updraft.edge.log;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.TopicToEnd;
import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.StartPhases;
import dev.updraft.events.SnapshotCodec;
import dev.updraft.events.SnapshotSet;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code updraft.snapshots} from its start to its end ({@code read_committed}) before the edge reads
 * the events: the snapshots to build the image from, and where to start each events partition. A topic
 * that does not exist (a control plane older than snapshots) or cannot be read means no snapshots: the
 * edge then reads the events from offset 0.
 */
final class SnapshotLoader {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotLoader.class);
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  private SnapshotLoader() {}

  /**
   * Reads the topic, decodes every app's snapshot (each as soon as it has arrived) and builds the image from
   * them, one app per task on a pool with a thread per core (the image is still published with one reference swap), and counts each
   * snapshot that cannot be used in {@code updraft_snapshot_fallbacks_total}. Records {@code snapshotRead},
   * {@code snapshotDecode} and {@code imageBuild} in the image's start phases. Returns what was read,
   * without the snapshots themselves (the image holds them now).
   */
  static SnapshotSet.Result load(String bootstrap, KafkaClientConfig kafka, String topic, String clientId, LiveImage live, MeterRegistry registry,
      ImageStore store) {
    StartPhases phases = live.phases();
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    AtomicInteger n = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "updraft-edge-snapshot-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      long t0 = System.nanoTime();
      Map<String, byte[]> latest = store == null ? null : new HashMap<>();
      SnapshotSet set = read(bootstrap, kafka, topic, clientId, pool, latest);
      if (store != null) {
        store.snapshotRecords(latest);
      }
      phases.since("snapshotRead", t0);
      long t1 = System.nanoTime();
      SnapshotSet.Result snapshots = set.result(pool);
      phases.since("snapshotDecode", t1);
      long t2 = System.nanoTime();
      live.publish(ImageDelta.loadAll(live.image(), snapshots.snapshots().values(), pool));
      phases.since("imageBuild", t2);
      for (SnapshotCodec.Read.Fallback f : snapshots.fallbacks()) {
        Counter.builder("updraft.snapshot.fallbacks").description("Snapshots not used: the app is replayed from the log")
            .tag("reason", f.reason()).register(registry).increment();
        LOG.warn("snapshot of appId={} not used ({}: {}); replaying the app from the log", f.appId(), f.reason(), f.detail());
      }
      live.loadedSnapshots(snapshots.snapshots().size());
      LOG.info("image built from {} app snapshots on {} threads ({} fallbacks): read {} ms, decoded {} ms, built {} ms",
          snapshots.snapshots().size(), threads, snapshots.fallbacks().size(), phases.millis().get("snapshotRead"),
          phases.millis().get("snapshotDecode"), phases.millis().get("imageBuild"));
      return snapshots.withoutSnapshots();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The latest record of every key of the topic; none when it cannot be read to its end.
   *
   * @param early nullable: where each app's snapshot starts decoding as soon as it has arrived (while the
   *     rest is read)
   * @param latest nullable: filled with the latest record of each key (what the set was built from); emptied
   *     when the set returned is empty
   */
  static SnapshotSet read(String bootstrap, KafkaClientConfig kafka, String topic, String clientId, Executor early, Map<String, byte[]> latest) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-snapshots");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    SnapshotSet set = new SnapshotSet(early);
    TopicToEnd.Read read;
    try {
      read = TopicToEnd.read(kafka.apply(p), topic, TIMEOUT, (k, v) -> {
        set.accept(k, v);
        if (latest != null && k != null) {
          if (v == null) {
            latest.remove(k);
          } else {
            latest.put(k, v);
          }
        }
      });
    } catch (org.apache.kafka.common.KafkaException e) {
      LOG.warn("cannot read {} ({}): reading the events from offset 0", topic, e.toString());
      clear(latest);
      return new SnapshotSet();
    }
    if (!read.topicExists()) {
      LOG.info("no topic {}: reading the events from offset 0", topic);
      return set;
    }
    if (!read.complete()) {
      LOG.warn("reading {} did not reach its end offsets {} within {}: reading the events from offset 0", topic, read.endOffsets(), TIMEOUT);
      clear(latest);
      return new SnapshotSet();
    }
    LOG.info("read {} records of {}", read.records(), topic);
    return set;
  }

  private static void clear(Map<String, byte[]> latest) {
    if (latest != null) {
      latest.clear();
    }
  }
}
