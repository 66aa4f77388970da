package dev.updraft.launcher.backup;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.events.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code updraft backup --out DIR}: the committed records of {@code updraft.events} and
 * {@code updraft.snapshots} (each partition up to its end offset at the start), the key store as stored, and
 * {@code manifest.json} with counts, offset ranges and the SHA-256 of every file, written last (a directory
 * without it is a backup that did not finish). Not thread-safe; one run per instance.
 *
 * <p>Order: the key store's listing, then the snapshots' end offsets, then the events' (every event a snapshot
 * covers was committed before the snapshot, so it lies below the events' end), then the key files (every key
 * an event up to that end refers to was stored before its event), then the records.
 */
final class Backup {
  /** The flags of {@code updraft backup}. */
  static final Set<String> FLAGS =
      Set.of("out", "kafka-bootstrap", KafkaClientConfig.FLAG, "topic-prefix", "data-dir", "key-store-dir", "no-key-store", "timeout", "help");

  /** The configuration of one run, from flags and {@code UPDRAFT_*} variables. */
  record Config(Path out, String bootstrap, String prefix, Path keyStore, Duration timeout, KafkaClientConfig kafka) {
    static Config from(Settings s) {
      s.rejectUnknown(FLAGS);
      Path out = s.path("out", null);
      if (out == null) {
        throw new ConfigException("--out DIR is required: the directory to write the backup to (new or empty)");
      }
      Path data = s.path("data-dir", Path.of(".updraft"));
      Path keys = s.bool("no-key-store", false) ? null : s.path("key-store-dir", data.resolve("keys")).toAbsolutePath().normalize();
      Duration timeout = s.duration("timeout", Duration.ofMinutes(2));
      if (timeout.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new ConfigException("--timeout (UPDRAFT_TIMEOUT) must be at least 1s: got " + timeout);
      }
      return new Config(out.toAbsolutePath().normalize(), s.string("kafka-bootstrap", "127.0.0.1:9092"), s.string("topic-prefix", ""),
          keys, timeout, KafkaClientConfig.from(s));
    }
  }

  private final Config config;
  private final Progress progress;

  Backup(Config config, Progress progress) {
    this.config = config;
    this.progress = progress;
  }

  BackupManifest run() throws IOException {
    Path out = config.out();
    if (!KeyFiles.absentOrEmpty(out)) {
      throw new Refusal("--out " + out + " is not an empty directory: a backup goes into a new or empty one");
    }
    KeyFiles.directory(out); // 0700: it may hold private keys
    List<KeyFiles.KeyFile> keys = config.keyStore() == null ? List.of() : KeyFiles.list(config.keyStore());
    String eventsTopic = Topics.events(config.prefix());
    String snapshotsTopic = Topics.snapshots(config.prefix());
    try (TopicReader reader = new TopicReader(config.bootstrap(), config.kafka(), config.timeout())) {
      List<TopicPartition> snapshotParts = reader.partitions(snapshotsTopic);
      Map<TopicPartition, long[]> snapshotBounds = reader.bounds(snapshotParts);
      List<TopicPartition> eventParts = reader.partitions(eventsTopic);
      if (eventParts.isEmpty()) {
        throw new Refusal("no topic " + eventsTopic + " at " + config.bootstrap() + ": nothing to back up (is --topic-prefix right?)");
      }
      Map<TopicPartition, long[]> eventBounds = reader.bounds(eventParts);
      int telemetry = reader.partitions(Topics.telemetry(config.prefix())).size();
      progress.say("reading " + eventsTopic + " (" + eventParts.size() + " partitions) and " + snapshotsTopic + " at " + config.bootstrap()
          + " up to their committed end offsets now");
      List<BackupManifest.FileEntry> files = new ArrayList<>();
      BackupManifest.KeyStoreSummary keySummary = copyKeys(keys, out, files);
      BackupManifest.Topic events = copy(reader, eventsTopic, "events", eventBounds, out, files);
      BackupManifest.Topic snapshots = copy(reader, snapshotsTopic, "snapshots", snapshotBounds, out, files);
      if (config.keyStore() != null && !KeyFiles.list(config.keyStore()).equals(keys)) {
        progress.say("warning: the key store changed while the backup ran (a key registered or retired, an app deleted): the backup"
            + " holds it as it was at the start; run it again at a quiet moment to be sure its keys match its events");
      }
      files.sort((a, b) -> a.path().compareTo(b.path()));
      BackupManifest m = new BackupManifest(BackupManifest.FORMAT, Instant.now().toString(), config.prefix(), config.bootstrap(), events,
          snapshots, telemetry, keySummary, files);
      Path tmp = out.resolve(BackupManifest.NAME + ".tmp");
      Files.write(tmp, BackupManifest.JSON.writeValueAsBytes(m));
      Files.move(tmp, out.resolve(BackupManifest.NAME), StandardCopyOption.ATOMIC_MOVE);
      return m;
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new Refusal("cannot read the topics at " + config.bootstrap() + ": " + e.getMessage() + " (the backup in " + out
          + " is incomplete: it has no " + BackupManifest.NAME + ")", e);
    }
  }

  private BackupManifest.KeyStoreSummary copyKeys(List<KeyFiles.KeyFile> keys, Path out, List<BackupManifest.FileEntry> files)
      throws IOException {
    if (config.keyStore() == null) {
      return null;
    }
    Path to = out.resolve("keys");
    KeyFiles.directory(to);
    int sealed = 0;
    for (KeyFiles.KeyFile k : keys) {
      KeyFiles.copy(config.keyStore(), to, k.relative());
      sealed += k.sealed() ? 1 : 0;
      files.add(entry(out, "keys/" + k.relative()));
    }
    if (keys.size() > sealed) {
      progress.say("warning: " + (keys.size() - sealed) + " of " + keys.size() + " keys are stored in clear (no --master-key): the backup"
          + " holds those private keys in clear; keep it as secret as the key store");
    }
    return new BackupManifest.KeyStoreSummary(config.keyStore().toString(), keys.size(), sealed);
  }

  private BackupManifest.Topic copy(TopicReader reader, String topic, String folder, Map<TopicPartition, long[]> bounds, Path out,
      List<BackupManifest.FileEntry> files) throws IOException {
    Files.createDirectories(out.resolve(folder));
    List<BackupManifest.Range> ranges = new ArrayList<>();
    long records = 0;
    for (Map.Entry<TopicPartition, long[]> b : bounds.entrySet()) {
      TopicPartition tp = b.getKey();
      String relative = folder + "/partition-" + tp.partition() + ".records.gz";
      BackupManifest.Range r = reader.copy(tp, b.getValue()[0], b.getValue()[1], out.resolve(relative), relative, progress);
      progress.say(topic + " partition " + tp.partition() + ": " + r.records() + " records of offsets " + r.logStartOffset() + ".."
          + r.endOffset() + " (" + r.skippedOffsets() + " offsets of aborted transactions and transaction markers left out)");
      ranges.add(r);
      records += r.records();
      files.add(entry(out, relative));
    }
    return new BackupManifest.Topic(topic, records, ranges);
  }

  private static BackupManifest.FileEntry entry(Path out, String relative) throws IOException {
    Path f = out.resolve(relative);
    return new BackupManifest.FileEntry(relative, Files.size(f), BackupManifest.sha256(f));
  }
}
