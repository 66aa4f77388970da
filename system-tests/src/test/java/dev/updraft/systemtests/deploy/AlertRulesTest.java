package dev.updraft.systemtests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The alerting rules, judged by Prometheus's own tool: {@code promtool check rules} accepts both rule files, and
 * {@code promtool test rules} runs {@code infra/prometheus/rules.test.yml}, where each tested alert fires on the
 * series of its trouble (with its labels and summary) and stays silent on a healthy neighbour. Without promtool the
 * test is skipped on a developer's machine and fails in CI ({@code .ci/install-promtool.sh} installs it).
 */
class AlertRulesTest {

  static String promtool() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && new File(dir, "promtool").canExecute()) {
        return new File(dir, "promtool").getPath();
      }
    }
    if (System.getenv("CI") != null) {
      throw new AssertionError("promtool is not on the PATH: CI must install it (.ci/install-promtool.sh)");
    }
    Assumptions.abort("promtool is not on the PATH (bash .ci/install-promtool.sh installs it); CI fails here");
    return null;
  }

  private static String run(String... args) throws Exception {
    Path dir = RepoFiles.root().resolve("infra/prometheus");
    Process p = new ProcessBuilder(args).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", String.join(" ", args)).isTrue();
    assertThat(p.exitValue()).as("%s:%n%s", String.join(" ", args), out).isZero();
    return out;
  }

  @Test
  void bothRuleFilesAreValidPrometheusRules() throws Exception {
    String out = run(promtool(), "check", "rules", "rules.yml", "alerts.yml");
    assertThat(out).contains("Checking rules.yml").contains("Checking alerts.yml").doesNotContain("FAILED");
  }

  @Test
  void eachTestedAlertFiresOnItsTroubleAndStaysSilentWhenHealthy() throws Exception {
    assertThat(run(promtool(), "test", "rules", "rules.test.yml")).contains("SUCCESS");
  }
}
