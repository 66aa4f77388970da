package dev.updraft.systemtests.deploy;

import static dev.updraft.systemtests.deploy.RepoFiles.at;
import static dev.updraft.systemtests.deploy.RepoFiles.list;
import static dev.updraft.systemtests.deploy.RepoFiles.map;
import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.ingester.IngesterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The deployment files (Kubernetes manifests, docker-compose.yml, Prometheus scrape config) parse and
 * agree with the real configuration: every {@code UPDRAFT_*} variable is a flag of the service it is
 * given to, ports and probe paths are the services' own.
 */
class DeploymentFilesTest {

  static final Map<String, Set<String>> FLAGS_BY_COMMAND =
      Map.of("control-plane", ControlPlaneConfig.FLAGS, "edge", EdgeConfig.FLAGS, "ingest", IngesterConfig.FLAGS);

  /** The AWS SDK's default-chain variables the control plane may be given for S3 storage. */
  static final Set<String> AWS_CHAIN =
      Set.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE");

  static String flagOf(String envName) {
    assertThat(envName).startsWith("UPDRAFT_");
    return envName.substring("UPDRAFT_".length()).toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  @Test
  void everyKubernetesManifestParsesAndNamesItsKind() throws Exception {
    Path dir = RepoFiles.root().resolve("infra/k8s/base");
    for (String f : List.of("namespace.yaml", "configmap.yaml", "secret.example.yaml", "control-plane.yaml", "edge.yaml", "ingester.yaml", "kustomization.yaml")) {
      List<Map<String, Object>> docs = RepoFiles.yamlDocuments(dir.resolve(f));
      assertThat(docs).as(f).isNotEmpty();
      for (Map<String, Object> d : docs) {
        assertThat(d).as(f).containsKeys("apiVersion", "kind");
      }
    }
    List<Object> resources = list(RepoFiles.yamlDocuments(dir.resolve("kustomization.yaml")).get(0).get("resources"), "resources");
    for (Object r : resources) {
      assertThat(dir.resolve(r.toString())).as("kustomization lists a file that exists").exists();
    }
  }

  @Test
  void kubernetesContainersUseRealFlagsPortsAndProbes() throws Exception {
    Path dir = RepoFiles.root().resolve("infra/k8s/base");
    Map<String, Object> configMap = RepoFiles.yamlDocuments(dir.resolve("configmap.yaml")).get(0);
    Set<String> anyFlag = new HashSet<>();
    FLAGS_BY_COMMAND.values().forEach(anyFlag::addAll);
    for (Object key : map(configMap.get("data"), "configmap data").keySet()) {
      assertThat(anyFlag).as("configmap key %s is a flag of some service", key).contains(flagOf(key.toString()));
    }
    Map<String, Integer> expectedPort = Map.of("control-plane", 8080, "edge", 3000, "ingest", 9400);
    Map<String, String> readiness = Map.of("control-plane", "/healthz", "edge", "/readyz", "ingest", "/healthz");
    int checked = 0;
    for (String f : List.of("control-plane.yaml", "edge.yaml", "ingester.yaml")) {
      for (Map<String, Object> d : RepoFiles.yamlDocuments(dir.resolve(f))) {
        Object containers = at(d, "spec", "template", "spec", "containers");
        if (containers == null) {
          continue;
        }
        for (Object c : list(containers, f + " containers")) {
          String command = list(map(c, "container").get("args"), "args").get(0).toString();
          Set<String> flags = FLAGS_BY_COMMAND.get(command);
          assertThat(flags).as("%s runs a known service command: %s", f, command).isNotNull();
          for (Object e : list(map(c, "container").get("env"), "env")) {
            String name = map(e, "env entry").get("name").toString();
            assertThat(flags).as("%s: %s is a flag of %s", f, name, command).contains(flagOf(name));
          }
          Object port = map(list(map(c, "container").get("ports"), "ports").get(0), "port").get("containerPort");
          assertThat(port).as("%s container port", f).isEqualTo(expectedPort.get(command));
          assertThat(at(c, "readinessProbe", "httpGet", "path")).as("%s readiness path", f).isEqualTo(readiness.get(command));
          // Prometheus scrapes a port the container has: --metrics-port 9464 (the control plane, edges), the ingester's 9400
          Object scrape = at(d, "spec", "template", "metadata", "annotations", "prometheus.io/port");
          assertThat(list(map(c, "container").get("ports"), "ports").toString()).as("%s scrape port", f).contains("containerPort=" + scrape);
          assertThat(scrape).as("%s scrapes off the public port", f).isEqualTo(command.equals("ingest") ? "9400" : "9464");
          checked++;
        }
      }
    }
    assertThat(checked).isEqualTo(3);
    // the control plane is the single writer: exactly one replica
    Map<String, Object> sts = RepoFiles.yamlDocuments(dir.resolve("control-plane.yaml")).get(0);
    assertThat(sts.get("kind")).isEqualTo("StatefulSet");
    assertThat(at(sts, "spec", "replicas")).isEqualTo(1);
    List<Map<String, Object>> edge = RepoFiles.yamlDocuments(dir.resolve("edge.yaml"));
    assertThat(edge.stream().map(d -> d.get("kind"))).contains("Deployment", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Service");
  }

  @Test
  void composeServicesUseRealFlagsAndPrometheusScrapesTheirPorts() throws Exception {
    Path root = RepoFiles.root();
    Map<String, Object> compose = RepoFiles.yamlDocuments(root.resolve("docker-compose.yml")).get(0);
    Map<String, Object> services = map(compose.get("services"), "services");
    assertThat(services).containsKeys("kafka", "postgres", "control-plane", "edge-1", "edge-2", "ingester", "prometheus", "grafana");
    for (Map.Entry<String, Object> s : services.entrySet()) {
      Object command = map(s.getValue(), s.getKey()).get("command");
      if (command == null) {
        continue;
      }
      String cmd = list(command, "command").get(0).toString();
      Set<String> flags = FLAGS_BY_COMMAND.get(cmd);
      assertThat(flags).as("compose service %s runs %s", s.getKey(), cmd).isNotNull();
      Map<String, Object> env = map(map(s.getValue(), s.getKey()).get("environment"), s.getKey() + " environment");
      Map<String, String> asFlags = new java.util.LinkedHashMap<>();
      for (Map.Entry<String, Object> e : env.entrySet()) {
        if (cmd.equals("control-plane") && AWS_CHAIN.contains(e.getKey())) {
          continue; // S3 credentials: the AWS SDK's own variables, read by its default chain, never a flag
        }
        assertThat(flags).as("compose %s: %s is a flag of %s", s.getKey(), e.getKey(), cmd).contains(flagOf(e.getKey()));
        // ${X:-default} validates with its default; ${X:?message} (a secret the operator must set) with a stand-in
        asFlags.put(flagOf(e.getKey()), e.getValue().toString().replaceAll("\\$\\{[A-Z0-9_]+:-([^}]*)}", "$1")
            .replaceAll("\\$\\{UPDRAFT_MASTER_KEY:\\?[^}]*}", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
            .replaceAll("\\$\\{[A-Z0-9_]+:\\?[^}]*}", "set-by-the-operator"));
      }
      // the configuration validates as the service would at start
      Settings settings = Settings.of(asFlags, Map.of());
      switch (cmd) {
        case "control-plane":
          ControlPlaneConfig.from(settings);
          // and with the S3 storage its variables offer, as docs/operations.md sets it
          assertThat(env).containsKeys("UPDRAFT_STORAGE", "UPDRAFT_S3_BUCKET", "UPDRAFT_S3_ENDPOINT", "UPDRAFT_S3_PATH_STYLE");
          ControlPlaneConfig.from(settings.with("storage", "s3").with("s3-bucket", "updates").with("s3-endpoint", "http://minio:9000"));
          break;
        case "edge": EdgeConfig.from(settings); break;
        default: IngesterConfig.from(settings); break;
      }
    }
    String prometheus = Files.readString(root.resolve("infra/prometheus/prometheus.yml"));
    Map<String, Object> prom = RepoFiles.yamlDocuments(root.resolve("infra/prometheus/prometheus.yml")).get(0);
    assertThat(list(prom.get("scrape_configs"), "scrape_configs")).hasSize(3);
    // the control plane and the edges serve /metrics on --metrics-port (9464), not on their public ports
    assertThat(prometheus).contains("edge-1:9464", "edge-2:9464", "control-plane:9464", "ingester:9400")
        .doesNotContain("control-plane:8080", "edge-1:3000");
    for (String s : List.of("control-plane", "edge-1", "edge-2")) {
      assertThat(map(map(services.get(s), s).get("environment"), s).get("UPDRAFT_METRICS_PORT")).as(s).isEqualTo("9464");
      assertThat(list(map(services.get(s), s).get("ports"), s + " ports").toString()).as("%s publishes no metrics port", s).doesNotContain("9464");
    }
    // the alerting rules are loaded, from the file compose mounts there
    assertThat(list(prom.get("rule_files"), "rule_files")).containsExactlyInAnyOrder("/etc/prometheus/rules.yml", "/etc/prometheus/alerts.yml");
    Object volumes = map(services.get("prometheus"), "prometheus").get("volumes");
    assertThat(list(volumes, "prometheus volumes")).contains("./infra/prometheus/rules.yml:/etc/prometheus/rules.yml:ro");
  }

  /**
   * No working secret ships in the repository: every password, token and key compose hands a service is a
   * variable compose refuses to start without ({@code ${X:?message}}), never a literal or a default.
   */
  @Test
  void composeRefusesToStartWithoutEverySecretFromTheEnvironment() throws Exception {
    Map<String, Object> services = map(RepoFiles.yamlDocuments(RepoFiles.root().resolve("docker-compose.yml")).get(0).get("services"), "services");
    java.util.regex.Pattern secretName = java.util.regex.Pattern.compile(".*(PASSWORD|TOKEN|SECRET|MASTER_KEY|POSTGRES_URL).*");
    java.util.regex.Pattern required = java.util.regex.Pattern.compile("\\$\\{[A-Z0-9_]+:\\?[^}]+}");
    int secrets = 0;
    for (Map.Entry<String, Object> s : services.entrySet()) {
      Object environment = map(s.getValue(), s.getKey()).get("environment");
      if (environment == null) {
        continue;
      }
      for (Map.Entry<String, Object> e : map(environment, s.getKey() + " environment").entrySet()) {
        if (!secretName.matcher(e.getKey()).matches() || AWS_CHAIN.contains(e.getKey())) {
          continue;
        }
        String value = String.valueOf(e.getValue());
        assertThat(required.matcher(value).find()).as("compose %s: %s=%s must come from the environment as ${VAR:?message}", s.getKey(), e.getKey(), value).isTrue();
        assertThat(value).as("compose %s: %s has no default", s.getKey(), e.getKey()).doesNotContain(":-");
        secrets++;
      }
    }
    // the admin token, the master key, PostgreSQL's password (twice: server and URL, ingester's URL) and Grafana's
    assertThat(secrets).isGreaterThanOrEqualTo(6);
    Map<String, Object> cp = map(map(services.get("control-plane"), "control-plane").get("environment"), "control-plane environment");
    assertThat(cp).containsKeys("UPDRAFT_ADMIN_TOKEN", "UPDRAFT_MASTER_KEY");
  }

  @Test
  void alertRulesParseAndOneFiresOnAnEdgeCutOffFromKafka() throws Exception {
    Map<String, Object> rules = RepoFiles.yamlDocuments(RepoFiles.root().resolve("infra/prometheus/rules.yml")).get(0);
    Set<String> names = new HashSet<>();
    String staleness = null;
    for (Object g : list(rules.get("groups"), "groups")) {
      for (Object r : list(map(g, "group").get("rules"), "rules")) {
        Map<String, Object> rule = map(r, "rule");
        String name = String.valueOf(rule.get("alert"));
        assertThat(names.add(name)).as("alert %s is named once", name).isTrue();
        assertThat(rule).as(name).containsKeys("alert", "expr", "for", "labels", "annotations");
        assertThat(at(rule, "labels", "severity")).as("%s severity", name).isIn("warning", "critical");
        assertThat(at(rule, "annotations", "summary")).as("%s summary", name).isNotNull();
        assertThat(rule.get("for").toString()).as("%s for", name).matches("[0-9]+[smh]");
        if (rule.get("expr").toString().contains("updraft_edge_log_staleness_seconds")) {
          staleness = name;
        }
      }
    }
    assertThat(staleness).as("an alert on updraft_edge_log_staleness_seconds").isNotNull();
  }

  @Test
  void certificateExpiryAlertIsLoadedOnTheControlPlanesGauge() throws Exception {
    Path root = RepoFiles.root();
    // the certificate-expiry alert: a rule file Prometheus loads, on the control plane's gauge
        assertThat(Files.readString(root.resolve("docker-compose.yml"))).contains("./infra/prometheus/alerts.yml:/etc/prometheus/alerts.yml");
    Map<String, Object> alerts = RepoFiles.yamlDocuments(root.resolve("infra/prometheus/alerts.yml")).get(0);
    List<String> exprs = new java.util.ArrayList<>();
    for (Object g : list(alerts.get("groups"), "groups")) {
      for (Object r : list(map(g, "group").get("rules"), "rules")) {
        exprs.add(String.valueOf(map(r, "rule").get("expr")));
      }
    }
    assertThat(exprs).anyMatch(e -> e.startsWith("updraft_control_signing_certificate_expiry_seconds < 30 * 86400"));
  }
}
