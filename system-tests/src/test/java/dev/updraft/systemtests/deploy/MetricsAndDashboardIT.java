package dev.updraft.systemtests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric the Grafana dashboard and the alerting rules ({@code infra/prometheus/rules.yml}) query is
 * one the running services really expose at /metrics (names drift silently otherwise), and no metric carries a per-device label.
 */
@ExtendWith(RealInfrastructure.class)
class MetricsAndDashboardIT {
  private static final Pattern METRIC = Pattern.compile("updraft_[a-z0-9_]+");
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s", Pattern.MULTILINE);

  @TempDir Path data;

  @Test
  void dashboardQueriesOnlyMetricsTheServicesExpose(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, data)) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", "metrics");
      cli.json("publish", "--app", "metrics", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
      // one device request of each kind the dashboard splits by
      String manifest = stack.edgeUrl() + "/apps/metrics/manifest";
      Http.get(manifest, "expo-platform", "ios", "expo-runtime-version", "1.0.0", "expo-channel-name", "main", "expo-protocol-version", "1", "accept", "multipart/mixed");
      Http.get(manifest, "expo-platform", "web", "expo-runtime-version", "1.0.0", "expo-channel-name", "main");

      // an edge that may start from the control plane's stored image (--image-source: here an empty directory)
      // exports its image-source refusals, which an alert watches
      Path images = Files.createDirectories(data.resolve("edge-images"));
      byte[] key = new byte[32];
      new java.security.SecureRandom().nextBytes(key);
      dev.updraft.edge.EdgeNode imageEdge = stack.startEdge("edge-image-source", java.util.Map.of("image-source", images.toString(),
          "edge-image-key", java.util.Base64.getEncoder().encodeToString(key)));
      Set<String> exposed = new TreeSet<>();
      StringBuilder all = new StringBuilder();
      String[] urls = {stack.edgeUrl() + "/metrics", stack.controlUrl() + "/metrics", stack.ingesterMetricsUrl(),
          "http://127.0.0.1:" + imageEdge.port() + "/metrics"};
      for (String url : urls) {
        var r = Http.get(url);
        assertThat(r.statusCode()).as(url).isEqualTo(200);
        all.append(r.body());
        Matcher m = SAMPLE.matcher(r.body());
        while (m.find()) {
          exposed.add(m.group(1));
        }
      }

      JsonNode dashboard = new ObjectMapper().readTree(Files.readAllBytes(RepoFiles.root().resolve("infra/grafana/dashboards/updraft.json")));
      Set<String> queried = new TreeSet<>();
      for (JsonNode expr : dashboard.findValues("expr")) {
        Matcher m = METRIC.matcher(expr.asText());
        while (m.find()) {
          queried.add(m.group());
        }
      }
      assertThat(queried).as("the dashboard queries Updraft metrics").hasSizeGreaterThan(10);
      // and so do the alerting rules
      Matcher rules = METRIC.matcher(Files.readString(RepoFiles.root().resolve("infra/prometheus/rules.yml")));
      while (rules.find()) {
        queried.add(rules.group());
      }
      for (String name : queried) {
        assertThat(exposed).as("dashboard metric %s is exposed by a service", name).contains(name);
      }
      // bounded cardinality: no client ids, update ids or app ids as label values
      assertThat(all.toString()).doesNotContain("client_id=", "clientId=", "update_id=", "updateId=");
      Stack.await(imageEdge.close());
    }
  }
}
