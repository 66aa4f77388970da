package dev.updraft.launcher.backup;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code manifest.json} of a backup: where it came from, per topic the records and per partition the offset
 * range read ({@code logStartOffset} to {@code endOffset}, the end being the last stable offset at the start of
 * the backup), the first and last offsets copied and the offsets not copied (aborted transactions, transaction
 * markers), the key store's file counts, and the size and SHA-256 of every file of the backup. {@link #verify}
 * checks the files against it before a restore reads anything. Immutable.
 *
 * @param format {@link #FORMAT}
 * @param createdAt ISO-8601 instant the backup started
 * @param telemetryPartitions of the source's telemetry topic (0 when it had none): a restore creates it alike
 * @param keyStore null when the backup was made with {@code --no-key-store}
 * @param files every file of the backup but the manifest, sorted by path
 */
record BackupManifest(
    int format,
    String createdAt,
    String topicPrefix,
    String kafkaBootstrap,
    Topic events,
    Topic snapshots,
    int telemetryPartitions,
    KeyStoreSummary keyStore,
    List<FileEntry> files) {

  static final int FORMAT = 1;
  static final String NAME = "manifest.json";
  /** The only shapes a file of a backup may have: a topic's partition file or a key file. */
  private static final Pattern PATH =
      Pattern.compile("(events|snapshots)/partition-[0-9]{1,4}\\.records\\.gz|keys/[a-z0-9][a-z0-9-]{0,62}/[0-9a-f]{64}\\.key");

  static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  BackupManifest {
    files = files == null ? null : List.copyOf(files);
  }

  /** One topic as backed up. */
  record Topic(String name, long records, List<Range> partitions) {
    Topic {
      partitions = partitions == null ? List.of() : List.copyOf(partitions);
    }
  }

  /**
   * One partition as backed up.
   *
   * @param firstOffset of the first record copied, -1 when none
   * @param lastOffset of the last record copied, -1 when none
   * @param skippedOffsets offsets in the range that are not records copied: aborted records and transaction markers
   */
  record Range(
      int partition, long logStartOffset, long endOffset, long records, long firstOffset, long lastOffset, long skippedOffsets, String file) {}

  /** The key store's files as copied: how many, and how many sealed with a master key. */
  record KeyStoreSummary(String directory, int files, int sealed) {}

  /** A file of the backup: its path relative to the backup directory, its size and its hex SHA-256. */
  record FileEntry(String path, long bytes, String sha256) {}

  void write(Path dir) throws IOException {
    Files.write(dir.resolve(NAME), JSON.writeValueAsBytes(this));
  }

  /** Reads the manifest of the backup at {@code dir}; throws {@link Refusal} when there is none or it does not parse. */
  static BackupManifest read(Path dir) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(NAME));
    } catch (NoSuchFileException e) {
      throw new Refusal("no " + NAME + " in " + dir + ": not an Updraft backup (or one that did not finish)");
    } catch (IOException e) {
      throw new Refusal("cannot read " + dir.resolve(NAME) + ": " + e.getMessage());
    }
    BackupManifest m;
    try {
      com.fasterxml.jackson.databind.JsonNode tree = JSON.readTree(bytes);
      int format = tree == null ? -1 : tree.path("format").asInt(-1);
      if (format != FORMAT) {
        throw new Refusal(dir.resolve(NAME) + " is format " + format + "; this build reads format " + FORMAT);
      }
      m = JSON.treeToValue(tree, BackupManifest.class);
    } catch (IOException e) {
      throw new Refusal(dir.resolve(NAME) + " does not parse: " + e.getMessage());
    }
    if (m.events() == null || m.snapshots() == null || m.files() == null) {
      throw new Refusal(dir.resolve(NAME) + " lacks its events, snapshots or files");
    }
    return m;
  }

  /**
   * What is wrong with the files of the backup at {@code dir} against this manifest: a path of a shape a
   * backup never has, a file missing, of another size or another SHA-256, a partition whose file is not
   * listed. Empty when all is well.
   */
  List<String> verify(Path dir) {
    List<String> problems = new ArrayList<>();
    List<String> listed = new ArrayList<>();
    for (FileEntry f : files) {
      if (f.path() == null || !PATH.matcher(f.path()).matches()) {
        problems.add("the manifest names a file a backup never has: " + f.path());
        continue;
      }
      listed.add(f.path());
      Path p = dir.resolve(f.path());
      try {
        long size = Files.size(p);
        String sha = sha256(p);
        if (size != f.bytes() || !sha.equals(f.sha256())) {
          problems.add(f.path() + " has " + size + " bytes, SHA-256 " + sha + "; the manifest says " + f.bytes() + " bytes, SHA-256 " + f.sha256());
        }
      } catch (NoSuchFileException e) {
        problems.add(f.path() + " is missing");
      } catch (IOException e) {
        problems.add(f.path() + " cannot be read: " + e.getMessage());
      }
    }
    for (Topic t : List.of(events, snapshots)) {
      for (Range r : t.partitions()) {
        if (!listed.contains(r.file())) {
          problems.add("partition " + r.partition() + " of " + t.name() + " names file " + r.file() + ", which the manifest does not list");
        }
      }
    }
    return problems;
  }

  /** The lower-case hex SHA-256 of a file's bytes. */
  static String sha256(Path file) throws IOException {
    MessageDigest md = digest();
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }
}
