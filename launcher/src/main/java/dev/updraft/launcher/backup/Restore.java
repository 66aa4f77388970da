package dev.updraft.launcher.backup;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.log.TopicSetup;
import dev.updraft.events.Topics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code updraft restore --from DIR}: checks the backup against its manifest, checks that the cluster's
 * Updraft topics are empty or absent (and the key store directory too), creates missing topics as the control
 * plane would (its settings; the backup's partition counts), writes each events partition's records in their
 * order to the same partition, then the snapshots with their offsets moved to where the events landed
 * ({@link SnapshotRewrite}), then the key files. Refuses, before writing anything, whatever else it finds.
 * Not thread-safe; one run per instance.
 */
final class Restore {
  /** The flags of {@code updraft restore}. */
  static final Set<String> FLAGS =
      Set.of("from", "kafka-bootstrap", KafkaClientConfig.FLAG, "topic-prefix", "data-dir", "key-store-dir", "no-key-store", "replication-factor",
          "min-insync-replicas", "telemetry-partitions", "telemetry-retention", "timeout", "help");

  /**
   * The configuration of one run.
   *
   * @param keyStore null with {@code --no-key-store}
   * @param telemetryPartitions 0: the backup's (4 when it names none)
   * @param replicationFactor 0: chosen from the cluster's size, as the control plane does
   * @param minInsync 0: as the control plane does
   */
  record Config(
      Path from, String bootstrap, String prefix, Path keyStore, int telemetryPartitions, Duration telemetryRetention,
      int replicationFactor, int minInsync, Duration timeout, KafkaClientConfig kafka) {
    static Config from(Settings s) {
      s.rejectUnknown(FLAGS);
      Path from = s.path("from", null);
      if (from == null) {
        throw new ConfigException("--from DIR is required: the directory `updraft backup --out` wrote");
      }
      Path data = s.path("data-dir", Path.of(".updraft"));
      Path keys = s.bool("no-key-store", false) ? null : s.path("key-store-dir", data.resolve("keys")).toAbsolutePath().normalize();
      Duration timeout = s.duration("timeout", Duration.ofMinutes(2));
      if (timeout.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new ConfigException("--timeout (UPDRAFT_TIMEOUT) must be at least 1s: got " + timeout);
      }
      return new Config(from.toAbsolutePath().normalize(), s.string("kafka-bootstrap", "127.0.0.1:9092"), s.string("topic-prefix", ""),
          keys, s.integer("telemetry-partitions", 0, 0, 1000), s.duration("telemetry-retention", Duration.ofDays(3)),
          s.integer("replication-factor", 0, 0, 32), s.integer("min-insync-replicas", 0, 0, 32), timeout,
          KafkaClientConfig.from(s));
    }
  }

  /** What a restore wrote. */
  record Summary(long events, int snapshots, int markers, int keyFiles, String offsets, List<String> notes) {}

  private final Config config;
  private final Progress progress;

  Restore(Config config, Progress progress) {
    this.config = config;
    this.progress = progress;
  }

  Summary run() throws IOException {
    Path from = config.from();
    BackupManifest m = BackupManifest.read(from);
    List<String> problems = m.verify(from);
    if (!problems.isEmpty()) {
      throw new Refusal("the backup in " + from + " does not match its manifest (altered or damaged), nothing was written: "
          + problems.get(0) + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : ""));
    }
    int partitions = m.events().partitions().size();
    for (int i = 0; i < partitions; i++) {
      if (m.events().partitions().get(i).partition() != i) {
        throw new Refusal("the backup's " + BackupManifest.NAME + " lists events partitions out of order: " + m.events().partitions());
      }
    }
    boolean keys = config.keyStore() != null && m.keyStore() != null;
    if (keys && !KeyFiles.absentOrEmpty(config.keyStore())) {
      throw new Refusal("the key store directory " + config.keyStore() + " is not empty: restore into a new or empty one"
          + " (--key-store-dir), or give --no-key-store and copy the backup's keys/ yourself");
    }
    String events = Topics.events(config.prefix());
    int telemetry = config.telemetryPartitions() > 0 ? config.telemetryPartitions()
        : m.telemetryPartitions() > 0 ? m.telemetryPartitions() : 4;
    try (Target target = new Target(config.bootstrap(), config.kafka(), config.timeout())) {
      target.requireEmpty(List.of(events, Topics.snapshots(config.prefix()), Topics.telemetry(config.prefix())), events, partitions);
      TopicSetup.ensure(config.bootstrap(), config.kafka(), TopicSetup.updraftTopics(config.prefix(), partitions, telemetry, config.telemetryRetention()),
          events, config.replicationFactor(), config.minInsync(), config.timeout());
      progress.say("topics ready at " + config.bootstrap() + "; writing " + m.events().records() + " events to " + events);
      OffsetMap offsets = new OffsetMap();
      long written = 0;
      for (BackupManifest.Range r : m.events().partitions()) {
        written += target.writeEvents(events, r, from.resolve(r.file()), offsets, progress);
      }
      target.flush("events");
      offsets.check();
      Map<Integer, Long> ends = new TreeMap<>();
      for (BackupManifest.Range r : m.events().partitions()) {
        ends.put(r.partition(), r.endOffset());
      }
      SnapshotRewrite.Result snaps = SnapshotRewrite.rewrite(readAll(from, m.snapshots()), offsets, ends);
      for (String note : snaps.notes()) {
        progress.say(note);
      }
      target.writeSnapshots(Topics.snapshots(config.prefix()), snaps.records());
      target.flush("snapshots");
      int keyFiles = keys ? restoreKeys(m) : 0;
      return new Summary(written, snaps.snapshots(), snaps.markers(), keyFiles, offsets.describe(), snaps.notes());
    } catch (org.apache.kafka.common.KafkaException | IllegalStateException e) {
      throw new Refusal("restore into " + config.bootstrap() + " failed: " + e.getMessage(), e);
    }
  }

  private static List<RecordFile.Rec> readAll(Path from, BackupManifest.Topic topic) throws IOException {
    List<RecordFile.Rec> out = new ArrayList<>();
    for (BackupManifest.Range r : topic.partitions()) {
      try (RecordFile.Reader in = new RecordFile.Reader(from.resolve(r.file()))) {
        for (RecordFile.Rec rec = in.next(); rec != null; rec = in.next()) {
          out.add(rec);
        }
      }
    }
    return out;
  }

  private int restoreKeys(BackupManifest m) throws IOException {
    KeyFiles.directory(config.keyStore());
    Path keys = config.from().resolve("keys");
    int n = 0;
    for (BackupManifest.FileEntry f : m.files()) {
      if (f.path().startsWith("keys/")) {
        KeyFiles.copy(keys, config.keyStore(), f.path().substring("keys/".length()));
        n++;
      }
    }
    if (m.keyStore().sealed() > 0) {
      progress.say(m.keyStore().sealed() + " of " + n + " keys are sealed: start the control plane with the --master-key they were sealed with");
    }
    return n;
  }
}
