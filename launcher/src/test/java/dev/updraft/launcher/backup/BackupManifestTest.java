package dev.updraft.launcher.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The manifest names every file with its size and SHA-256; any difference, or a path a backup never has, is named. */
class BackupManifestTest {
  @TempDir Path dir;

  static final String SHA_OF_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  static final String KEY = "keys/app-1/" + "0".repeat(64) + ".key";

  BackupManifest manifest(List<BackupManifest.FileEntry> files) {
    BackupManifest.Range r = new BackupManifest.Range(0, 0, 4, 2, 0, 2, 2, "events/partition-0.records.gz");
    return new BackupManifest(BackupManifest.FORMAT, "2026-12-01T00:00:00Z", "", "127.0.0.1:9092",
        new BackupManifest.Topic("updraft.events", 2, List.of(r)), new BackupManifest.Topic("updraft.snapshots", 0, List.of()), 4,
        new BackupManifest.KeyStoreSummary("/keys", 1, 0), files);
  }

  void files() throws Exception {
    Files.createDirectories(dir.resolve("events"));
    Files.writeString(dir.resolve("events/partition-0.records.gz"), "abc");
    Files.createDirectories(dir.resolve(KEY).getParent());
    Files.writeString(dir.resolve(KEY), "abc");
  }

  List<BackupManifest.FileEntry> entries() {
    return List.of(new BackupManifest.FileEntry("events/partition-0.records.gz", 3, SHA_OF_ABC), new BackupManifest.FileEntry(KEY, 3, SHA_OF_ABC));
  }

  @Test
  void shouldFindNothingWrongWithFilesAsHashed() throws Exception {
    files();
    BackupManifest m = manifest(entries());
    m.write(dir);
    assertThat(BackupManifest.read(dir)).isEqualTo(m);
    assertThat(m.verify(dir)).isEmpty();
  }

  @Test
  void shouldNameAFileWhoseBytesChanged() throws Exception {
    files();
    Files.writeString(dir.resolve(KEY), "abd");
    assertThat(manifest(entries()).verify(dir)).singleElement().asString().startsWith(KEY + " has 3 bytes, SHA-256 ")
        .endsWith("the manifest says 3 bytes, SHA-256 " + SHA_OF_ABC);
  }

  @Test
  void shouldNameAMissingFileAPartitionNotListedAndAPathOutsideTheBackup() throws Exception {
    files();
    Files.delete(dir.resolve(KEY));
    List<String> problems = manifest(List.of(new BackupManifest.FileEntry(KEY, 3, SHA_OF_ABC),
        new BackupManifest.FileEntry("../../etc/passwd", 3, SHA_OF_ABC))).verify(dir);
    assertThat(problems).containsExactly(KEY + " is missing", "the manifest names a file a backup never has: ../../etc/passwd",
        "partition 0 of updraft.events names file events/partition-0.records.gz, which the manifest does not list");
  }

  @Test
  void shouldRefuseADirectoryWithoutAManifestOrOfAnotherFormat() throws Exception {
    assertThatThrownBy(() -> BackupManifest.read(dir)).isInstanceOf(Refusal.class).hasMessageContaining("not an Updraft backup");
    Files.write(dir.resolve(BackupManifest.NAME), "{\"format\":9}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> BackupManifest.read(dir)).hasMessageContaining("is format 9; this build reads format 1");
  }
}
