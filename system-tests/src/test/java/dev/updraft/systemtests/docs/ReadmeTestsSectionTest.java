package dev.updraft.systemtests.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's test section says what a reader cannot see from a green build: how long the whole suite takes (only
 * as a committed timing of a full run records it: docs/benchmarks/runs/DATE/suite-timing.json, written by
 * {@code java .ci/RecordRun.java}) and which tests can skip and why (every test class that can skip is named there).
 */
class ReadmeTestsSectionTest {
  static final Path ROOT = DocBlocks.repoRoot();
  /**
   * What makes a test skip: JUnit conditions and assumptions, the MinIO server that only Docker gives, and Azurite
   * where it is not installed (outside CI).
   */
  static final Pattern SKIPS = Pattern.compile("@EnabledIf|@DisabledIf|@Disabled\\b|@EnabledOn|@DisabledOn|Assumptions\\.|assumeTrue|assumeFalse"
      + "|S3Servers\\.minio\\(|disabledWithoutDocker|AzuriteServer\\.start\\(");

  static String testsSection() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int a = readme.indexOf("\n## Tests\n");
    assertThat(a).as("README.md has a Tests section").isPositive();
    int b = readme.indexOf("\n## ", a + 1);
    return readme.substring(a, b < 0 ? readme.length() : b);
  }

  @Test
  void theSuiteTimeTheReadmeGivesIsACommittedTimingOfAFullRun() throws Exception {
    String section = testsSection();
    int a = section.indexOf("<!-- suite-time -->");
    int b = section.indexOf("<!-- /suite-time -->");
    assertThat(a).as("the suite time between <!-- suite-time --> and <!-- /suite-time --> (RecordRun rewrites it)").isNotNegative();
    assertThat(b).isGreaterThan(a);
    String said = section.substring(a, b);
    Matcher minutes = Pattern.compile("(\\d+) min(?:utes)?(?: (\\d+) s)?").matcher(said);
    Matcher link = Pattern.compile("\\(docs/benchmarks/runs/(\\d{4}-\\d{2}-\\d{2})/suite-timing\\.json\\)").matcher(said);
    if (!minutes.find()) {
      assertThat(said).as("no time stated: the sentence says none is recorded").contains("no run has been recorded");
      return;
    }
    assertThat(link.find()).as("a suite time must link the committed timing it comes from: %s", said).isTrue();
    Path timing = ROOT.resolve("docs/benchmarks/runs/" + link.group(1) + "/suite-timing.json");
    assertThat(timing).as("the timing the README links").isRegularFile();
    JsonNode t = new ObjectMapper().readTree(timing.toFile());
    assertThat(t.path("date").asText()).isEqualTo(link.group(1));
    assertThat(t.path("failed").asInt()).as("a timing of a run that passed").isZero();
    long stated = Long.parseLong(minutes.group(1)) * 60 + (minutes.group(2) == null ? 0 : Long.parseLong(minutes.group(2)));
    long wall = t.path("wallSeconds").asLong(-1);
    assertThat(wall).as("the timing's wall time").isPositive();
    assertThat(Math.abs(stated - wall)).as("README says %d s, the timing %d s", stated, wall).isLessThanOrEqualTo(minutes.group(2) == null ? 59 : 0);
  }

  @Test
  void everyTestThatCanSkipIsNamedWithWhy() throws IOException {
    String section = testsSection();
    Set<String> canSkip = new TreeSet<>();
    try (Stream<Path> s = Files.walk(ROOT, 12)) {
      for (Path p : s.filter(f -> f.toString().contains("/src/test/java/") && f.toString().endsWith(".java") && !f.toString().contains("/target/")).toList()) {
        String name = p.getFileName().toString().replace(".java", "");
        if (SKIPS.matcher(Files.readString(p)).find() && !name.equals(getClass().getSimpleName())) {
          canSkip.add(name);
        }
      }
    }
    assertThat(canSkip).as("test classes that can skip").isNotEmpty();
    List<String> unnamed = new ArrayList<>();
    for (String name : canSkip) {
      if (!section.contains("`" + name + "`")) {
        unnamed.add(name);
      }
    }
    assertThat(unnamed).as("tests that can skip and are not named in the README's test section").isEmpty();
  }
}
