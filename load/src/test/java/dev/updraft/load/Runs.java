package dev.updraft.load;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.load.report.Summary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Runs {@link LoadCommand} in the test JVM and reads back what it wrote. */
/** Runs a load command into a folder and reads its result files back (shared by the tests of every package). */
public final class Runs {
  public record Outcome(int exit, String out, String err, JsonNode summary, Path dir, String name) {
    public Path file(String suffix) {
      return dir.resolve(name + suffix);
    }
  }

  private Runs() {}

  public static Outcome run(Path dir, String name, String... args) throws Exception {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    if (all.isEmpty() || all.get(0).startsWith("--")) {
      all.add(0, "run");
    }
    // a test never fails because the machine is busy: drops for lateness only where a test asks for them
    if ((all.get(0).equals("run") || all.get(0).equals("replay")) && !all.contains("--max-lag")) {
      all.addAll(List.of("--max-lag", "30s"));
    }
    all.addAll(List.of("--out-dir", dir.toString(), "--name", name));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = LoadCommand.run(all.toArray(new String[0]), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    Path summary = dir.resolve(name + "-summary.json");
    JsonNode s = summary.toFile().exists() ? Summary.JSON.readTree(summary.toFile()) : null;
    return new Outcome(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), s, dir, name);
  }
}
