import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Records a full test run for the docs, from the reports it left in every module's target/surefire-reports and
 * target/failsafe-reports. Run it at the repository root right after the run, with nothing but a JDK, in a fresh
 * clone or after removing every module's target folder (it reads every report it finds, older ones too):
 *
 * <pre>
 *   ( time CI=true bash .ci/run ) 2>&1 | tee /tmp/run.log      # the whole suite, as CI runs it; note "real"
 *   java .ci/RecordRun.java --wall 16m32s                       # the "real" time printed above
 *   git add docs README.md                                      # the timing, the outputs, the rewritten rows
 * </pre>
 *
 * <p>It writes, under today's date (UTC, or --date YYYY-MM-DD):
 * <ul>
 *   <li>with --wall (a full run's time), docs/benchmarks/runs/DATE/suite-timing.json: the wall time given, the
 *       commit, the machine's cores, and every test class's time, count and module (unit or integration);
 *   <li>docs/reliability/runs/DATE/NAME.txt for every test a row of docs/reliability.md names first: the lines the
 *       test printed about what it did (those starting with a lower-case subject and a colon, e.g.
 *       {@code kafka outage: ...}), under a header with the date, the commit and the test's time;
 * </ul>
 * and rewrites the figures of those rows in docs/reliability.md, and with --wall the suite time in README.md
 * (between {@code <!-- suite-time -->} and {@code <!-- /suite-time -->}), from them. Without --wall (a run of
 * some tests, e.g. {@code -Dit.test=KafkaOutageIT,EdgeKillIT}) only the rows of the tests that ran change. ReliabilityDocTest and
 * ReadmeSuiteTimeTest (system-tests) check that what the docs say traces to those files.
 */
public final class RecordRun {
  /** A line a test prints about what it did: a lower-case subject, a colon, the figures. */
  static final Pattern SUMMARY = Pattern.compile("^[a-z][a-z0-9 ,/()'.-]{1,60}: .+");
  /** A row's first test: a class name in back quotes ending in IT or Test, maybe with a method. */
  static final Pattern FIRST_TEST = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:IT|Test))(?:\\.[a-z][A-Za-z0-9]*)?`");
  /** A figures cell's lines longer than this stay in the output file only. */
  static final int MAX_LINE_IN_DOC = 700;

  record Suite(String module, String kind, String name, double seconds, int tests, int failures, int errors, int skipped, List<String> summary) {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of("").toAbsolutePath();
    String date = LocalDate.now(ZoneOffset.UTC).toString();
    String wall = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--date" -> date = LocalDate.parse(args[i + 1]).toString();
        case "--wall" -> wall = args[i + 1];
        default -> throw new IllegalArgumentException("unknown flag " + args[i] + " (flags: --wall 16m32s, --date YYYY-MM-DD)");
      }
    }
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("flags come in pairs: --wall 16m32s --date YYYY-MM-DD");
    }
    List<Suite> suites = read(root);
    if (suites.isEmpty()) {
      throw new IllegalStateException("no TEST-*.xml under */target/surefire-reports or */target/failsafe-reports in " + root
          + ": run the suite first (CI=true bash .ci/run)");
    }
    String commit = commit(root);
    if (wall != null) {
      writeTiming(root, date, commit, wall, suites); // a timing of the whole suite only: --wall says it was a full run
    }
    Map<String, Suite> byName = new TreeMap<>();
    for (Suite s : suites) {
      byName.put(s.name().substring(s.name().lastIndexOf('.') + 1), s);
    }
    int rows = rewriteReliability(root, date, commit, byName);
    if (wall != null) {
      rewriteReadme(root, date, wall);
    }
    System.out.printf("recorded %d test classes (%d failed or errored) of commit %s on %s; %d reliability rows; timing and README %s%n",
        suites.size(), suites.stream().filter(s -> s.failures() + s.errors() > 0).count(), commit, date, rows,
        wall == null ? "unchanged (no --wall: not a full run)" : "written, " + wall);
  }

  static List<Suite> read(Path root) throws Exception {
    List<Suite> out = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.walk(root, 4)) {
      files = s.filter(p -> p.getFileName().toString().startsWith("TEST-") && p.getFileName().toString().endsWith(".xml"))
          .filter(p -> p.getParent().getFileName().toString().matches("(surefire|failsafe)-reports"))
          .sorted().toList();
    }
    var factory = DocumentBuilderFactory.newInstance();
    for (Path f : files) {
      Element suite = factory.newDocumentBuilder().parse(f.toFile()).getDocumentElement();
      String kind = f.getParent().getFileName().toString().startsWith("failsafe") ? "integration" : "unit";
      String module = root.relativize(f).getName(0).toString();
      List<String> summary = new ArrayList<>();
      NodeList outs = suite.getElementsByTagName("system-out");
      for (int i = 0; i < outs.getLength(); i++) {
        for (String line : outs.item(i).getTextContent().split("\\R")) {
          if (SUMMARY.matcher(line).matches()) {
            summary.add(line.strip());
          }
        }
      }
      out.add(new Suite(module, kind, suite.getAttribute("name"), Double.parseDouble(suite.getAttribute("time").replace(",", "")),
          Integer.parseInt(suite.getAttribute("tests")), Integer.parseInt(suite.getAttribute("failures")),
          Integer.parseInt(suite.getAttribute("errors")), Integer.parseInt(suite.getAttribute("skipped")), summary));
    }
    return out;
  }

  static String commit(Path root) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD").directory(root.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return p.waitFor() == 0 ? out : "unknown";
  }

  static void writeTiming(Path root, String date, String commit, String wall, List<Suite> suites) throws IOException {
    StringBuilder j = new StringBuilder("{\n");
    j.append("  \"date\": \"").append(date).append("\",\n");
    j.append("  \"commit\": \"").append(commit).append("\",\n");
    j.append("  \"command\": \"CI=true bash .ci/run\",\n");
    j.append("  \"wall\": ").append(wall == null ? "null" : "\"" + wall + "\"").append(",\n");
    j.append("  \"wallSeconds\": ").append(wall == null ? "null" : Long.toString(seconds(wall))).append(",\n");
    j.append("  \"cores\": ").append(Runtime.getRuntime().availableProcessors()).append(",\n");
    Map<String, double[]> modules = new TreeMap<>();
    for (Suite s : suites) {
      double[] m = modules.computeIfAbsent(s.module() + " " + s.kind(), k -> new double[2]);
      m[0] += s.seconds();
      m[1] += s.tests();
    }
    j.append("  \"testSeconds\": ").append(String.format(Locale.ROOT, "%.1f", suites.stream().mapToDouble(Suite::seconds).sum())).append(",\n");
    j.append("  \"tests\": ").append(suites.stream().mapToInt(Suite::tests).sum()).append(",\n");
    j.append("  \"failed\": ").append(suites.stream().mapToInt(s -> s.failures() + s.errors()).sum()).append(",\n");
    j.append("  \"skipped\": ").append(suites.stream().mapToInt(Suite::skipped).sum()).append(",\n");
    j.append("  \"byModule\": [\n");
    int i = 0;
    for (Map.Entry<String, double[]> m : modules.entrySet()) {
      String[] k = m.getKey().split(" ");
      j.append(String.format(Locale.ROOT, "    {\"module\": \"%s\", \"kind\": \"%s\", \"seconds\": %.1f, \"tests\": %d}%s%n", k[0], k[1],
          m.getValue()[0], (long) m.getValue()[1], ++i < modules.size() ? "," : ""));
    }
    j.append("  ],\n  \"classes\": [\n");
    List<Suite> sorted = new ArrayList<>(suites);
    sorted.sort((a, b) -> Double.compare(b.seconds(), a.seconds()));
    i = 0;
    for (Suite s : sorted) {
      j.append(String.format(Locale.ROOT,
          "    {\"class\": \"%s\", \"module\": \"%s\", \"kind\": \"%s\", \"seconds\": %.1f, \"tests\": %d, \"failed\": %d, \"skipped\": %d}%s%n",
          s.name(), s.module(), s.kind(), s.seconds(), s.tests(), s.failures() + s.errors(), s.skipped(), ++i < sorted.size() ? "," : ""));
    }
    j.append("  ]\n}\n");
    Path out = root.resolve("docs/benchmarks/runs/" + date + "/suite-timing.json");
    Files.createDirectories(out.getParent());
    Files.writeString(out, j.toString());
  }

  /** "16m32s", "992s", "16:32" as seconds. */
  static long seconds(String wall) {
    Matcher m = Pattern.compile("(?:(\\d+)m)?\\s*(?:(\\d+(?:\\.\\d+)?)s)?").matcher(wall.trim());
    if (wall.contains(":")) {
      String[] p = wall.trim().split(":");
      return Long.parseLong(p[0]) * 60 + Math.round(Double.parseDouble(p[1]));
    }
    if (!m.matches() || wall.isBlank()) {
      throw new IllegalArgumentException("--wall: a time like 16m32s, 992s or 16:32, got " + wall);
    }
    return (m.group(1) == null ? 0 : Long.parseLong(m.group(1)) * 60) + (m.group(2) == null ? 0 : Math.round(Double.parseDouble(m.group(2))));
  }

  /** Writes the output file of every first-named test that ran, and the figures of its rows; returns how many rows. */
  static int rewriteReliability(Path root, String date, String commit, Map<String, Suite> byName) throws IOException {
    Path doc = root.resolve("docs/reliability.md");
    List<String> lines = new ArrayList<>(Files.readAllLines(doc));
    int rows = 0;
    Map<String, Boolean> written = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.startsWith("| ") || line.startsWith("| ---") || line.startsWith("|---")) {
        continue;
      }
      List<String> cells = cells(line);
      if (cells.size() < 4) {
        continue;
      }
      Matcher m = FIRST_TEST.matcher(cells.get(1));
      if (!m.find() || !byName.containsKey(m.group(1))) {
        continue;
      }
      Suite s = byName.get(m.group(1));
      if (s.failures() + s.errors() > 0 || s.tests() == s.skipped()) {
        continue; // a failed or skipped run backs no figures
      }
      String file = "reliability/runs/" + date + "/" + m.group(1) + ".txt";
      if (written.putIfAbsent(m.group(1), true) == null) {
        Path out = root.resolve("docs/" + file);
        Files.createDirectories(out.getParent());
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "# %s (%s, %s tests), run %s of commit %s: %d tests in %.1f s, %d skipped%n", s.name(), s.module(),
            s.kind(), date, commit, s.tests(), s.seconds(), s.skipped()));
        b.append("# the lines it printed about what it did (target/").append(s.kind().equals("unit") ? "surefire" : "failsafe")
            .append("-reports/TEST-").append(s.name()).append(".xml, system-out)\n");
        s.summary().forEach(l -> b.append(l).append('\n'));
        Files.writeString(out, b.toString());
      }
      List<String> shown = new ArrayList<>();
      for (String l : s.summary()) {
        if (l.length() <= MAX_LINE_IN_DOC) {
          shown.add(l.replace("|", "\\|"));
        }
      }
      String figures = "run " + date + " ([output](" + file + ")): " + (shown.isEmpty() ? String.format(Locale.ROOT, "%d tests passed in %.1f s",
          s.tests(), s.seconds()) : String.join("; ", shown)) + (shown.size() < s.summary().size() ? "; more in the output" : "");
      cells.set(cells.size() - 1, figures);
      lines.set(i, "| " + String.join(" | ", cells) + " |");
      rows++;
    }
    Files.write(doc, lines);
    return rows;
  }

  /** A Markdown table row's cells (an escaped \| stays inside its cell). */
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

  static void rewriteReadme(Path root, String date, String wall) throws IOException {
    Path readme = root.resolve("README.md");
    String text = Files.readString(readme);
    int a = text.indexOf("<!-- suite-time -->");
    int b = text.indexOf("<!-- /suite-time -->");
    if (a < 0 || b < a) {
      throw new IllegalStateException("README.md has no <!-- suite-time --> ... <!-- /suite-time --> to rewrite");
    }
    long s = seconds(wall);
    String sentence = String.format(Locale.ROOT, "<!-- suite-time -->On a 2-core machine the whole run (`CI=true bash .ci/run`) took"
        + " %d min %02d s on %s ([timing](docs/benchmarks/runs/%s/suite-timing.json), recorded with `java .ci/RecordRun.java`).",
        s / 60, s % 60, date, date);
    Files.writeString(readme, text.substring(0, a) + sentence + text.substring(b));
  }
}
