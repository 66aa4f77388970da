package dev.updraft.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md's flag reference is the servers' flag tables, rendered: a flag added to, dropped from or
 * changed in a table and not in the doc (or the other way round) fails here, printing the section the doc should
 * have. {@code -Dupdraft.writeDocs=true} writes it into the doc instead (the generator).
 */
class FlagReferenceDocTest {
  static final String START = "<!-- flag-reference:start (generated from the flag tables by FlagReferenceDocTest: edit the"
      + " tables, then run it with -Dupdraft.writeDocs=true) -->";
  static final String END = "<!-- flag-reference:end -->";

  private static final List<String> COMMANDS = List.of("control-plane", "edge", "ingest", "dev");

  static FlagTable table(String command) {
    return command.equals("dev") ? DevFlags.TABLE : ServiceCommand.table(command);
  }

  /** The generated section, between its markers. */
  static String reference() {
    StringBuilder b = new StringBuilder(START).append("\n\nEvery flag `--x` can also be given as the environment variable"
        + " `UPDRAFT_X` (a flag wins over it); all are checked at start, and a bad value stops the process with a message naming"
        + " the flag and the value. `updraft <command> --help` prints the same.\n");
    for (String c : COMMANDS) {
      b.append("\n### `updraft ").append(c).append("`\n\n").append(table(c).markdown());
    }
    return b.append('\n').append(END).toString();
  }

  static Path operationsDoc() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/operations.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir.resolve("docs/operations.md");
  }

  @Test
  void theOperationsDocsFlagReferenceIsTheFlagTables() throws IOException {
    Path doc = operationsDoc();
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int start = text.indexOf(START);
    int end = text.indexOf(END);
    assertThat(start).as("docs/operations.md has the flag reference's start marker:\n" + START).isNotNegative();
    assertThat(end).as("and its end marker after it").isGreaterThan(start);
    String expected = reference();
    String actual = text.substring(start, end + END.length());
    if (!actual.equals(expected) && Boolean.getBoolean("updraft.writeDocs")) {
      Files.writeString(doc, text.substring(0, start) + expected + text.substring(end + END.length()), StandardCharsets.UTF_8);
      actual = expected;
    }
    assertThat(actual).as("docs/operations.md's flag reference differs from the flag tables; it should read:\n" + expected)
        .isEqualTo(expected);
  }

  @Test
  void theDocsOtherFlagTablesNameOnlyFlagsAServerHas() throws IOException {
    String text = Files.readString(operationsDoc(), StandardCharsets.UTF_8);
    String outside = text.substring(0, Math.max(0, text.indexOf(START)));
    Set<String> known = new HashSet<>();
    for (String c : COMMANDS) {
      known.addAll(table(c).names());
    }
    List<String> unknown = new ArrayList<>();
    int rows = 0;
    for (String line : outside.split("\n")) {
      if (line.startsWith("| `--")) {
        rows++;
        Matcher m = Pattern.compile("`--([a-z0-9-]+)`").matcher(line.substring(0, line.indexOf(" |", 2)));
        while (m.find()) {
          if (!known.contains(m.group(1))) {
            unknown.add(m.group(1));
          }
        }
      }
    }
    assertThat(rows).as("hand-written flag rows (transport, S3, Azure, metrics, OIDC)").isGreaterThan(20);
    assertThat(unknown).as("flags docs/operations.md describes that no server has").isEmpty();
  }

  @Test
  void everyFlagOfEveryServerHasARowInTheDoc() throws IOException {
    String text = Files.readString(operationsDoc(), StandardCharsets.UTF_8);
    for (String c : COMMANDS) {
      String section = text.substring(text.indexOf("### `updraft " + c + "`"));
      for (Flag<?> f : table(c).flags()) {
        assertThat(section).as("updraft %s: --%s in docs/operations.md", c, f.name())
            .contains("| `--" + f.name() + "` | `" + f.env() + "` |");
      }
    }
  }
}
