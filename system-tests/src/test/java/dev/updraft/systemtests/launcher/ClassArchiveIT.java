package dev.updraft.systemtests.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./updraft} script's class-data archive: a server started without one writes it when it stops,
 * the next start keeps it (if that run lasted long enough) and loads its classes from it; {@code --help}, a
 * run that ended too soon, or {@code UPDRAFT_CDS=0} leave none behind. A start that fails its configuration at once is
 * the quick way to run a server command here: the archive is written at any exit.
 */
class ClassArchiveIT {

  @TempDir Path tmp;

  @Test
  void aServerWritesItsArchiveWhenItStopsAndTheNextStartLoadsIt() throws Exception {
    Path dir = tmp.resolve("cds");
    Run first = run(dir, Map.of("UPDRAFT_CDS_MIN_SECONDS", "0"), "edge", "--edge-port", "nope");
    assertThat(first.status).as("the configuration error's status: " + first.output).isEqualTo(2);
    assertThat(first.output).contains("no class-data archive for 'edge' yet").contains("--edge-port");
    assertThat(names(dir)).as("written by the JVM as it exited, under its pid").singleElement()
        .satisfies(n -> assertThat(n).startsWith("edge-").endsWith(".tmp"));

    // the next start keeps it and maps it: -Xshare:on makes the JVM refuse to start (status 1, "Unable to
    // use shared archive") unless it does
    Run second = run(dir, Map.of("UPDRAFT_JAVA_OPTS", "-Xshare:on", "UPDRAFT_CDS_MIN_SECONDS", "0"), "edge", "--edge-port", "nope");
    assertThat(second.status).as(second.output).isEqualTo(2);
    assertThat(second.output).doesNotContain("class-data archive").doesNotContain("shared archive");
    assertThat(names(dir)).singleElement().satisfies(n -> assertThat(n).startsWith("edge-").endsWith(".jsa"));

    // another command has its own archive
    Run ingest = run(dir, Map.of("UPDRAFT_CDS_MIN_SECONDS", "0"), "ingest", "--ingest-batch-size", "nope");
    assertThat(ingest.output).contains("no class-data archive for 'ingest' yet");
    assertThat(names(dir)).hasSize(2);
  }

  @Test
  void helpARunThatEndedTooSoonAndCdsOffLeaveNoArchive() throws Exception {
    Path dir = tmp.resolve("cds");
    Run help = run(dir, Map.of("UPDRAFT_CDS_MIN_SECONDS", "0"), "edge", "--help");
    assertThat(help.status).isZero();
    assertThat(help.output).contains("usage: updraft edge").doesNotContain("class-data archive");
    assertThat(names(dir)).isEmpty();

    Run tooSoon = run(dir, Map.of(), "edge", "--edge-port", "nope");
    assertThat(tooSoon.output).contains("no class-data archive for 'edge' yet");
    Run next = run(dir, Map.of(), "edge", "--edge-port", "nope");
    assertThat(next.output).as("the run before lasted under the default 10 s: its archive was dropped")
        .contains("no class-data archive for 'edge' yet");
    assertThat(names(dir)).as("only the last run's, still to be judged").singleElement()
        .satisfies(n -> assertThat(n).endsWith(".tmp"));

    Path off = tmp.resolve("off");
    Run disabled = run(off, Map.of("UPDRAFT_CDS", "0", "UPDRAFT_CDS_MIN_SECONDS", "0"), "edge", "--edge-port", "nope");
    assertThat(disabled.status).isEqualTo(2);
    assertThat(disabled.output).doesNotContain("class-data archive");
    assertThat(names(off)).isEmpty();
  }

  private record Run(int status, String output) {}

  private Run run(Path cdsDir, Map<String, String> env, String... args) throws IOException, InterruptedException {
    Path root = root();
    Path out = Files.createTempFile(tmp, "run", ".out");
    ProcessBuilder b = new ProcessBuilder(Stream.concat(Stream.of("sh", root.resolve("updraft").toString()), Stream.of(args)).toList())
        .directory(root.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
    b.environment().put("UPDRAFT_CDS_DIR", cdsDir.toString());
    b.environment().put("JAVA_HOME", System.getProperty("java.home"));
    b.environment().remove("UPDRAFT_JAVA_OPTS");
    b.environment().putAll(env);
    Process p = b.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("./updraft " + String.join(" ", args) + " still running").isTrue();
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  private static List<String> names(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static Path root() {
    String p = System.getProperty("updraft.repoRoot");
    Path root = p != null ? Path.of(p) : Path.of("").toAbsolutePath().getParent();
    assertThat(root.resolve("updraft")).as("the launcher script").exists();
    return root;
  }
}
