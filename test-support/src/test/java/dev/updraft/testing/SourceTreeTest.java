package dev.updraft.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a benchmark's summary says about the code it measured. Uses git, which a clone of this repository has;
 * the repositories are made in temporary directories.
 */
class SourceTreeTest {
  @TempDir Path dir;

  private void git(String... args) throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("git %s: %s", String.join(" ", args), out).isZero();
  }

  @Test
  void aDirectoryOutsideAnyCheckoutIsUnknownAndSaysWhere() {
    assertThat(SourceTree.describe(dir)).isEqualTo("unknown (no git checkout in " + dir + ")");
  }

  @Test
  void aCheckoutIsItsShortCommitAndSaysWhenTrackedFilesChanged() throws Exception {
    git("init", "-q");
    Files.writeString(dir.resolve("a.txt"), "one\n");
    git("add", "a.txt");
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "one");
    String described = SourceTree.describe(dir);
    assertThat(described).matches("[0-9a-f]{7,}");

    Files.writeString(dir.resolve("untracked.txt"), "not part of the measured code's commit\n");
    assertThat(SourceTree.describe(dir)).as("an untracked file changes nothing tracked").isEqualTo(described);

    Files.writeString(dir.resolve("a.txt"), "two\n");
    assertThat(SourceTree.describe(dir)).isEqualTo(described + " with uncommitted changes");
  }
}
