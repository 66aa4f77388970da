package dev.updraft.systemtests.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * docs/reliability.md says what the fault, bad-input and security tests hold and what they printed; this keeps it
 * true: every test it names exists, each test leads one row only, every figure of a row comes from the output of
 * the run that produced it, committed beside the doc and dated (docs/reliability/runs/DATE/NAME.txt, written by
 * {@code java .ci/RecordRun.java} after a full run), and its count of API operations is the spec's.
 */
class ReliabilityDocTest {
  static final Path ROOT = DocBlocks.repoRoot();
  static final Pattern TEST_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:IT|Test))(\\.[a-z][A-Za-z0-9]*)?`");
  static final Pattern RECORDED = Pattern.compile("^run (\\d{4}-\\d{2}-\\d{2}) \\(\\[output\\]\\((reliability/runs/(\\d{4}-\\d{2}-\\d{2})/([A-Za-z0-9]+)\\.txt)\\)\\): (.+)$");
  /** A number as the doc writes it: digits with thousands separators, maybe a decimal part. */
  static final Pattern NUMBER = Pattern.compile("(?<![\\w.])\\d[\\d,]*(?:\\.\\d+)?");
  /** What a row whose test has no recorded run yet says instead of figures. */
  static final String NOT_RECORDED = "not recorded yet";

  record Row(int line, String section, List<String> cells) {
    String test() {
      return cells.get(1);
    }

    String figures() {
      return cells.get(cells.size() - 1);
    }
  }

  @Test
  void everyTestADocRowNamesExists() throws IOException {
    Set<String> sources = testSources();
    List<String> missing = new ArrayList<>();
    for (Row r : rows()) {
      Matcher m = TEST_NAME.matcher(String.join(" | ", r.cells()));
      while (m.find()) {
        if (!sources.contains(m.group(1))) {
          missing.add("line " + r.line() + ": " + m.group(1));
        }
      }
    }
    assertThat(missing).as("tests named in docs/reliability.md with no source file").isEmpty();
  }

  @Test
  void eachTestLeadsOneRowOnly() throws IOException {
    Map<String, Integer> first = new HashMap<>();
    List<String> twice = new ArrayList<>();
    for (Row r : rows()) {
      Matcher m = TEST_NAME.matcher(r.test());
      assertThat(m.find()).as("line %d names its test in back quotes: %s", r.line(), r.test()).isTrue();
      String key = m.group(1) + (m.group(2) == null ? "" : m.group(2));
      Integer before = first.putIfAbsent(key, r.line());
      if (before != null) {
        twice.add(key + " leads lines " + before + " and " + r.line());
      }
    }
    assertThat(twice).as("rows of docs/reliability.md led by the same test").isEmpty();
  }

  @Test
  void everyFigureComesFromTheCommittedOutputOfTheRunThatProducedIt() throws IOException {
    List<String> problems = new ArrayList<>();
    int recorded = 0;
    for (Row r : rows()) {
      String figures = r.figures();
      if (figures.equals(NOT_RECORDED) || figures.equals("—")) {
        continue;
      }
      Matcher m = RECORDED.matcher(figures);
      if (!m.matches()) {
        problems.add("line " + r.line() + ": figures neither from a recorded run (\"run DATE ([output](reliability/runs/DATE/NAME.txt)): ...\")"
            + " nor \"" + NOT_RECORDED + "\": " + abbreviate(figures));
        continue;
      }
      Matcher t = TEST_NAME.matcher(r.test());
      t.find();
      if (!m.group(1).equals(m.group(3)) || !m.group(4).equals(t.group(1))) {
        problems.add("line " + r.line() + ": the output cited (" + m.group(2) + ") is not of " + t.group(1) + " on " + m.group(1));
        continue;
      }
      Path out = ROOT.resolve("docs").resolve(m.group(2));
      if (!Files.isRegularFile(out)) {
        problems.add("line " + r.line() + ": no committed output " + out);
        continue;
      }
      String text = Files.readString(out);
      if (!text.startsWith("# ") || !text.lines().findFirst().orElse("").contains("run " + m.group(1) + " of commit ")) {
        problems.add("line " + r.line() + ": " + m.group(2) + " does not start with the header naming its run's date and commit");
      }
      String numbers = text.replace(",", "");
      Matcher n = NUMBER.matcher(m.group(5));
      while (n.find()) {
        if (!numbers.contains(n.group().replace(",", ""))) {
          problems.add("line " + r.line() + ": the figure " + n.group() + " is not in " + m.group(2));
        }
      }
      recorded++;
    }
    assertThat(problems).as("figures of docs/reliability.md not traced to a committed run").isEmpty();
    assertThat(recorded).as("rows with recorded figures").isPositive();
  }

  @Test
  void theOperationCountsTheDocGivesAreTheSpecs() throws IOException {
    int spec = specOperations();
    Matcher m = Pattern.compile("(\\d+) (?:API )?operations").matcher(Files.readString(ROOT.resolve("docs/reliability.md")));
    List<String> wrong = new ArrayList<>();
    while (m.find()) {
      if (Integer.parseInt(m.group(1)) != spec) {
        wrong.add(m.group());
      }
    }
    assertThat(wrong).as("counts of operations in docs/reliability.md; docs/api/openapi.yaml has %d", spec).isEmpty();
  }

  /** The operations of docs/api/openapi.yaml: one per method of each path. */
  @SuppressWarnings("unchecked")
  static int specOperations() throws IOException {
    Map<String, Object> spec = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(ROOT.resolve("docs/api/openapi.yaml")));
    int n = 0;
    for (Object item : ((Map<String, Object>) spec.get("paths")).values()) {
      for (String k : ((Map<String, Object>) item).keySet()) {
        n += Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace").contains(k) ? 1 : 0;
      }
    }
    return n;
  }

  /** The rows of the doc's tables whose second column is the test, with their section. */
  static List<Row> rows() throws IOException {
    List<Row> out = new ArrayList<>();
    List<String> lines = Files.readAllLines(ROOT.resolve("docs/reliability.md"));
    String section = "";
    boolean inTable = false;
    boolean testTable = false;
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.startsWith("#")) {
        section = l;
      }
      if (!l.startsWith("|")) {
        inTable = false;
        continue;
      }
      List<String> cells = cells(l);
      if (!inTable) {
        inTable = true; // the first row of a table names its columns
        testTable = cells.size() >= 4 && cells.get(1).equals("test");
        continue;
      }
      if (testTable && !l.matches("\\|[ :-]+\\|.*")) {
        out.add(new Row(i + 1, section, cells));
      }
    }
    return out;
  }

  /** A Markdown table row's cells (an escaped \| stays inside its cell), as .ci/RecordRun.java splits them. */
  static List<String> cells(String row) {
    List<String> out = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    String inner = row.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    for (int i = 0; i < inner.length(); i++) {
      char c = inner.charAt(i);
      if (c == '\\' && i + 1 < inner.length() && inner.charAt(i + 1) == '|') {
        cell.append("\\|");
        i++;
      } else if (c == '|') {
        out.add(cell.toString().strip());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    out.add(cell.toString().strip());
    return out;
  }

  /** The simple names of every test source file of the repository. */
  static Set<String> testSources() throws IOException {
    Set<String> out = new TreeSet<>();
    try (Stream<Path> s = Files.walk(ROOT, 12)) {
      s.filter(p -> p.toString().contains("/src/test/java/") && p.toString().endsWith(".java") && !p.toString().contains("/target/"))
          .forEach(p -> out.add(p.getFileName().toString().replace(".java", "")));
    }
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() > 120 ? s.substring(0, 120) + "…" : s;
  }
}
