package dev.updraft.controlplane.snapshots;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.controlplane.log.LogWriteException;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.Snapshots;
import dev.updraft.events.AppSnapshot;
import dev.updraft.events.SnapshotCodec;
import dev.updraft.events.SnapshotCodec.Read;
import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import dev.updraft.events.SnapshotSet;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's side of {@code updraft.snapshots}: at start, the snapshots to begin from and where
 * to start reading each events partition; while running, which apps are due a snapshot and the records
 * that write them. Command thread only (it owns the transactional producer the records go through).
 *
 * <p>One write is one transaction: for each app due, its chunks ({@code appId/snapshotId/i}), its manifest
 * ({@code appId}) and tombstones for its previous snapshot's chunks; then every partition's marker. A
 * crash before the commit leaves the previous snapshots and markers as they were; the topic stays bounded
 * (compaction keeps one manifest per app, the tombstoned chunks go).
 *
 * <p>A write holds at most about {@link #MAX_WRITE_BYTES} of snapshot bytes (and always one app): when more
 * apps are due (thousands at once after a bulk import or a first start), the first ones by app id are written
 * and the rest stay due for the next write, a second later. Without the bound a write held every due app's
 * encoded snapshot in memory at once, and one transaction of all of them.
 */
public final class Snapshotter {
  private static final Logger LOG = LoggerFactory.getLogger(Snapshotter.class);
  /** The snapshot bytes one write (one transaction) holds at most, beyond its first app. */
  static final long MAX_WRITE_BYTES = 16L << 20;

  /** Writes one transaction of records (the event log's producer). */
  @FunctionalInterface
  public interface Writer {
    void write(List<ProducerRecord<String, byte[]>> records) throws LogWriteException;
  }

  private final String bootstrap;
  private final KafkaClientConfig kafka;
  private final String topic;
  private final SnapshotPolicy policy;
  private final MeterRegistry metrics;
  private final Counter written;
  private final long maxWriteBytes;
  /** Apps still due after the last write (more than its bound let it carry). */
  private int leftDue;
  private final Coverage coverage = new Coverage();
  private SnapshotSet.Result loaded = new SnapshotSet().result();
  private volatile int snapshotApps;
  private volatile long eventsReplayed;

  public Snapshotter(String bootstrap, String topic, SnapshotPolicy policy, MeterRegistry metrics) {
    this(bootstrap, KafkaClientConfig.none(), topic, policy, metrics);
  }

  /** @param kafka the {@code --kafka-config} settings added to the consumer reading the snapshots at start */
  public Snapshotter(String bootstrap, KafkaClientConfig kafka, String topic, SnapshotPolicy policy, MeterRegistry metrics) {
    this(bootstrap, kafka, topic, policy, metrics, MAX_WRITE_BYTES);
  }

  Snapshotter(String bootstrap, KafkaClientConfig kafka, String topic, SnapshotPolicy policy, MeterRegistry metrics, long maxWriteBytes) {
    this.maxWriteBytes = maxWriteBytes;
    this.bootstrap = bootstrap;
    this.kafka = kafka;
    this.topic = topic;
    this.policy = policy;
    this.metrics = metrics;
    this.written = Counter.builder("updraft_control_snapshots_written_total").description("app snapshots written").register(metrics);
    metrics.gauge("updraft_control_snapshot_apps", this, s -> s.snapshotApps);
    metrics.gauge("updraft_control_events_replayed", this, s -> s.eventsReplayed);
  }

  public String topic() {
    return topic;
  }

  /**
   * Reads the snapshots and returns {@code state} with every usable one restored; counts and logs those
   * that are not (their apps are replayed from their partition's start).
   */
  public ControlState load(ControlState state, Instant now, Duration timeout) {
    loaded = SnapshotStore.read(bootstrap, kafka, topic, timeout).requiring(Snapshots.OLDEST_USABLE);
    ControlState s = state;
    for (AppSnapshot snap : loaded.snapshots().values()) {
      s = Snapshots.restore(s, snap);
      coverage.restored(loaded.manifests().get(snap.appId()), now);
    }
    for (Read.Fallback f : loaded.fallbacks()) {
      Counter.builder("updraft_snapshot_fallbacks_total").description("snapshots not used: the app is replayed from the log")
          .tag("reason", f.reason()).register(metrics).increment();
      LOG.warn("snapshot of appId={} not used ({}: {}); replaying the app from the log", f.appId(), f.reason(), f.detail());
      SnapshotManifest m = loaded.manifests().get(f.appId());
      if (m != null) {
        coverage.unusable(m, now);
      }
    }
    snapshotApps = loaded.snapshots().size();
    loaded = loaded.withoutSnapshots(); // the state holds them now; keep only where they stand
    return s;
  }

  /** Where to start reading each events partition. */
  public Map<Integer, Long> startOffsets(List<Integer> partitions) {
    return loaded.startOffsets(partitions);
  }

  /** Whether an event is in its app's snapshot already (then it is not folded again). */
  public boolean covers(String appId, int partition, long offset) {
    return loaded.covers(appId, partition, offset);
  }

  /** An event of an app was folded (at start or after a write). */
  public void folded(String appId, int partition, long offset, Instant now, boolean replaying) {
    coverage.folded(appId, partition, offset, now);
    if (replaying) {
      eventsReplayed++;
    }
  }

  public int snapshotApps() {
    return snapshotApps;
  }

  public long eventsReplayed() {
    return eventsReplayed;
  }

  /**
   * Writes the snapshots of the apps due at {@code now} (all apps with events since their last when
   * {@code all}) in one transaction, at most about {@link #MAX_WRITE_BYTES} of them (the rest stay due, or,
   * with {@code all}, go in the next transactions of this call); nothing when none is due or snapshots are off.
   *
   * @return how many apps were written
   */
  public int writeDue(ControlState state, Instant now, boolean all, Writer writer) throws LogWriteException {
    int total = 0;
    while (true) {
      int n = writeSome(state, now, all, writer);
      total += n;
      if (!all || n == 0 || leftDue == 0) {
        return total;
      }
    }
  }

  private int writeSome(ControlState state, Instant now, boolean all, Writer writer) throws LogWriteException {
    leftDue = 0;
    if (!policy.on()) {
      return 0;
    }
    List<Coverage.App> due = coverage.due(now, all ? new SnapshotPolicy(1, policy.every()) : policy);
    if (due.isEmpty()) {
      return 0;
    }
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    long bytes = 0;
    int left = 0;
    for (Coverage.App a : due) {
      if (bytes >= maxWriteBytes) {
        left++;
        ids.add(null);
        counts.add(0);
        continue;
      }
      AppSnapshot snap = Snapshots.of(state, a.appId, a.partition, a.lastOffset);
      if (snap == null) {
        ids.add(null);
        counts.add(0);
        continue;
      }
      String id = "s" + snap.lastSequence() + "-" + UUID.randomUUID().toString().substring(0, 8);
      byte[] gz = SnapshotCodec.encode(snap);
      List<byte[]> chunks = SnapshotCodec.split(gz, SnapshotCodec.CHUNK_BYTES);
      bytes += gz.length;
      for (int i = 0; i < chunks.size(); i++) {
        records.add(new ProducerRecord<>(topic, SnapshotCodec.chunkKey(a.appId, id, i), chunks.get(i)));
      }
      records.add(new ProducerRecord<>(topic, SnapshotCodec.manifestKey(a.appId),
          SnapshotCodec.encodeManifest(SnapshotCodec.manifest(snap, id, gz, chunks.size()))));
      if (a.snapshotId != null) {
        for (int i = 0; i < a.chunks; i++) {
          records.add(new ProducerRecord<>(topic, SnapshotCodec.chunkKey(a.appId, a.snapshotId, i), null));
        }
      }
      ids.add(id);
      counts.add(chunks.size());
    }
    // the markers as they will be once these snapshots are written
    Map<Integer, Long> before = coverage.markers();
    List<Coverage.App> done = new ArrayList<>();
    for (int i = 0; i < due.size(); i++) {
      if (ids.get(i) != null) {
        done.add(due.get(i));
      }
    }
    Map<Integer, Long> markers = coverage.markersIfWritten(done);
    for (Map.Entry<Integer, Long> m : markers.entrySet()) {
      records.add(new ProducerRecord<>(topic, SnapshotCodec.markerKey(m.getKey()),
          SnapshotCodec.encodeMarker(new SnapshotCodec.PartitionMarker(AppSnapshot.VERSION, m.getKey(), m.getValue()))));
    }
    writer.write(records);
    for (int i = 0; i < due.size(); i++) {
      if (ids.get(i) != null) {
        coverage.written(due.get(i), ids.get(i), counts.get(i), now);
      }
    }
    leftDue = left;
    written.increment(done.size());
    LOG.info("wrote snapshots of {} apps ({} records, {} bytes) to {}; markers {} (were {}){}", done.size(), records.size(), bytes, topic,
        markers, before, left == 0 ? "" : "; " + left + " more apps due stay for the next write (" + maxWriteBytes + " bytes a write)");
    return done.size();
  }
}
