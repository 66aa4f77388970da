package dev.updraft.launcher.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What backup and restore refuse before they reach Kafka: one line naming the directory, exit status 1. */
class BackupCommandsTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String command, String... args) {
    return BackupCommands.run(command, args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRefuseAnOutputDirectoryThatIsNotEmpty() throws Exception {
    Files.writeString(dir.resolve("old-backup.txt"), "something");
    assertThat(run("backup", "--out", dir.toString(), "--kafka-bootstrap", "127.0.0.1:1")).isEqualTo(1);
    assertThat(err()).isEqualTo("updraft backup: --out " + dir + " is not an empty directory: a backup goes into a new or empty one\n");
    assertThat(dir.resolve("old-backup.txt")).hasContent("something");
  }

  @Test
  void shouldRefuseAMissingKeyStoreUnlessToldToLeaveItOut() {
    Path out = dir.resolve("backup");
    Path keys = dir.resolve("no-such-keys");
    assertThat(run("backup", "--out", out.toString(), "--key-store-dir", keys.toString(), "--kafka-bootstrap", "127.0.0.1:1")).isEqualTo(1);
    assertThat(err()).isEqualTo("updraft backup: no key store at " + keys + ": give the control plane's --key-store-dir (or --data-dir), or"
        + " --no-key-store to back up the topics alone\n");
  }

  @Test
  void shouldRefuseToRestoreADirectoryThatIsNoBackup() {
    assertThat(run("restore", "--from", dir.toString(), "--kafka-bootstrap", "127.0.0.1:1")).isEqualTo(1);
    assertThat(err()).isEqualTo("updraft restore: no manifest.json in " + dir + ": not an Updraft backup (or one that did not finish)\n");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
  }
}
