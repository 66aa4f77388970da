package dev.updraft.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code updraft --help} lists every command; {@code updraft help COMMAND} is that command's {@code --help}. */
class UpdraftHelpTest {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... args) {
    out.reset();
    err.reset();
    return Updraft.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void helpListsTheServersTheLoadGeneratorAndEveryPublisherCommand() {
    assertThat(run("--help")).isZero();
    assertThat(out()).contains("  dev ", "  control-plane ", "  edge ", "  ingest ", "load run|replay|baseline|report|events")
        .contains("  backup --out DIR [--kafka-bootstrap H:P]", "  restore --from DIR [--kafka-bootstrap H:P]")
        .contains("  publish --app APP", "  rollout --app APP", "  completion bash|zsh", "exit status: 0 ok");
    String help = out();
    assertThat(run("help")).isZero();
    assertThat(out()).isEqualTo(help);
    assertThat(run()).isEqualTo(2);
    assertThat(out()).isEqualTo(help);
  }

  @Test
  void backupAndRestoreRefuseBadFlagsAsUsageErrors() {
    assertThat(run("backup")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("updraft backup: --out DIR is required: the directory to write the backup to"
        + " (new or empty)\n");
    assertThat(run("restore", "--from", "x", "--form", "y")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("updraft restore: unknown flag --form; known: --data-dir");
  }

  @Test
  void helpCommandIsThatCommandsOwnHelp() {
    assertThat(run("help", "publish")).isZero();
    assertThat(out()).startsWith("Usage: updraft publish").contains("--rollout-percentage").doesNotContain("--token-id");
    assertThat(run("help", "tokens", "create")).isZero();
    assertThat(out()).startsWith("Usage: updraft tokens create").contains("--role");
    assertThat(run("help", "load")).isZero();
    assertThat(out()).startsWith("usage: updraft load");
    assertThat(run("help", "backup")).isZero();
    assertThat(out()).startsWith("usage: updraft backup --out DIR").contains("read_committed", "--no-key-store", "manifest.json");
    assertThat(run("restore", "--help")).isZero();
    assertThat(out()).startsWith("usage: updraft restore --from DIR").contains("--replication-factor", "SHA-256");
    assertThat(run("help", "frobnicate")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'frobnicate'");
  }
}
