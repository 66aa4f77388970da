package dev.updraft.systemtests.deploy;

import static dev.updraft.systemtests.deploy.RepoFiles.at;
import static dev.updraft.systemtests.deploy.RepoFiles.list;
import static dev.updraft.systemtests.deploy.RepoFiles.map;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * {@code kubectl kustomize} renders both Kubernetes overlays ({@code infra/k8s/base} and
 * {@code infra/k8s/overlays/production}) and what it renders is deployable as is: pinned images, probes and
 * resources on every container, no secret value anywhere, and in production replicas with disruption
 * budgets and Kafka's client properties mounted where the flag points. Without kubectl the test is skipped
 * on a developer's machine and fails in CI ({@code .ci/install-kubectl.sh} installs it).
 */
class KustomizeOverlaysTest {

  static final Pattern SECRET_NAME = Pattern.compile(".*(PASSWORD|TOKEN|SECRET|MASTER_KEY|POSTGRES_URL|ACCESS_KEY).*");

  static String kubectl() {
    String configured = System.getenv("UPDRAFT_KUBECTL");
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && new File(dir, "kubectl").canExecute()) {
        return new File(dir, "kubectl").getPath();
      }
    }
    if (System.getenv("CI") != null) {
      throw new AssertionError("kubectl is not on the PATH: CI must install it (.ci/install-kubectl.sh)");
    }
    Assumptions.abort("kubectl is not on the PATH (bash .ci/install-kubectl.sh installs it); CI fails here");
    return null;
  }

  static List<Map<String, Object>> render(String overlay) throws IOException, InterruptedException {
    Path dir = RepoFiles.root().resolve("infra/k8s").resolve(overlay);
    Path out = Files.createTempFile("kustomize", ".yaml");
    Path err = Files.createTempFile("kustomize", ".err");
    try {
      Process p = new ProcessBuilder(kubectl(), "kustomize", dir.toString())
          .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("kubectl kustomize " + overlay + " did not finish in 120 s");
      }
      assertThat(p.exitValue()).as("kubectl kustomize %s: %s", overlay, Files.readString(err)).isZero();
      List<Map<String, Object>> docs = new ArrayList<>();
      try (InputStream in = Files.newInputStream(out)) {
        for (Object o : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(in)) {
          if (o != null) {
            docs.add(map(o, overlay + " document"));
          }
        }
      }
      return docs;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  static Stream<Map<String, Object>> workloads(List<Map<String, Object>> docs) {
    return docs.stream().filter(d -> Set.of("Deployment", "StatefulSet").contains(d.get("kind")));
  }

  static List<Map<String, Object>> containers(Map<String, Object> workload) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object c : list(at(workload, "spec", "template", "spec", "containers"), name(workload) + " containers")) {
      out.add(map(c, name(workload) + " container"));
    }
    return out;
  }

  static String name(Map<String, Object> doc) {
    return doc.get("kind") + "/" + at(doc, "metadata", "name");
  }

  /** A Kubernetes quantity in base units (cores, bytes): 500m, 2, 512Mi, 1Gi. */
  static double quantity(Object q) {
    String s = String.valueOf(q);
    Map<String, Double> suffix = Map.of("m", 1e-3, "Ki", 1024.0, "Mi", 1024.0 * 1024, "Gi", 1024.0 * 1024 * 1024);
    for (Map.Entry<String, Double> e : suffix.entrySet()) {
      if (s.endsWith(e.getKey())) {
        return Double.parseDouble(s.substring(0, s.length() - e.getKey().length())) * e.getValue();
      }
    }
    return Double.parseDouble(s);
  }

  @Test
  void bothOverlaysRenderWithPinnedImagesProbesAndResourcesOnEveryContainer() throws Exception {
    for (String overlay : List.of("base", "overlays/production")) {
      List<Map<String, Object>> docs = render(overlay);
      assertThat(workloads(docs).map(KustomizeOverlaysTest::name)).as(overlay)
          .containsExactlyInAnyOrder("StatefulSet/updraft-control-plane", "Deployment/updraft-edge", "Deployment/updraft-ingester");
      Set<String> images = new HashSet<>();
      workloads(docs).forEach(w -> {
        for (Map<String, Object> c : containers(w)) {
          String what = overlay + " " + name(w);
          String image = String.valueOf(c.get("image"));
          String tag = image.contains("@") ? image.substring(image.indexOf('@') + 1) : image.substring(image.lastIndexOf('/') + 1);
          assertThat(tag).as("%s image %s is pinned to a tag or digest", what, image).matches("[^:]+:[A-Za-z0-9_.-]+|sha256:[0-9a-f]{64}");
          assertThat(tag).as("%s image %s", what, image).doesNotEndWith(":latest");
          images.add(image);
          for (String probe : List.of("readinessProbe", "livenessProbe")) {
            assertThat(at(c, probe, "httpGet", "path")).as("%s %s path", what, probe).asString().startsWith("/");
          }
          assertThat(at(c, "resources", "requests", "cpu")).as("%s cpu request", what).isNotNull();
          Object memRequest = at(c, "resources", "requests", "memory");
          Object memLimit = at(c, "resources", "limits", "memory");
          assertThat(memRequest).as("%s memory request", what).isNotNull();
          assertThat(memLimit).as("%s memory limit", what).isNotNull();
          assertThat(quantity(memLimit)).as("%s memory limit >= request", what).isGreaterThanOrEqualTo(quantity(memRequest));
          if (overlay.equals("overlays/production")) {
            Object cpuLimit = at(c, "resources", "limits", "cpu");
            assertThat(cpuLimit).as("%s cpu limit", what).isNotNull();
            assertThat(quantity(cpuLimit)).as("%s cpu limit >= request", what).isGreaterThanOrEqualTo(quantity(at(c, "resources", "requests", "cpu")));
          }
        }
      });
      assertThat(images).as("%s runs one image for the three services", overlay).hasSize(1);
      if (overlay.equals("overlays/production")) {
        assertThat(images.iterator().next()).as("production pulls from a registry").contains("/");
      }
      // the control plane is the single writer in every overlay
      Map<String, Object> cp = workloads(docs).filter(w -> name(w).equals("StatefulSet/updraft-control-plane")).findFirst().orElseThrow();
      assertThat(at(cp, "spec", "replicas")).as(overlay + " control-plane replicas").isEqualTo(1);
    }
  }

  @Test
  void noRenderedObjectCarriesASecretValue() throws Exception {
    for (String overlay : List.of("base", "overlays/production")) {
      for (Map<String, Object> d : render(overlay)) {
        if ("Secret".equals(d.get("kind"))) {
          for (String field : List.of("data", "stringData")) {
            Object values = d.get(field);
            if (values != null) {
              for (Map.Entry<String, Object> e : map(values, name(d)).entrySet()) {
                assertThat(String.valueOf(e.getValue())).as("%s %s %s is a placeholder", overlay, name(d), e.getKey()).contains("replace-me");
              }
            }
          }
        }
        if ("ConfigMap".equals(d.get("kind"))) {
          for (Object key : map(d.get("data"), name(d) + " data").keySet()) {
            assertThat(SECRET_NAME.matcher(key.toString()).matches()).as("%s %s: %s belongs in a Secret", overlay, name(d), key).isFalse();
          }
        }
        if (Set.of("Deployment", "StatefulSet").contains(d.get("kind"))) {
          for (Map<String, Object> c : containers(d)) {
            Object env = c.get("env");
            for (Object e : env == null ? List.of() : list(env, name(d) + " env")) {
              Map<String, Object> entry = map(e, "env entry");
              if (SECRET_NAME.matcher(entry.get("name").toString()).matches()) {
                assertThat(entry).as("%s %s: %s comes from a Secret", overlay, name(d), entry.get("name")).doesNotContainKey("value");
              }
            }
          }
        }
      }
    }
    // the committed examples carry placeholders only
    Path k8s = RepoFiles.root().resolve("infra/k8s");
    try (Stream<Path> files = Files.walk(k8s)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          var m = Pattern.compile("password[=\"]+([^\";\\s]*)", Pattern.CASE_INSENSITIVE).matcher(line);
          while (m.find()) {
            assertThat(m.group(1)).as("%s: %s", k8s.relativize(f), line).isIn("replace-me", "PASSWORD");
          }
        }
      }
    }
  }

  @Test
  void productionRunsReplicasUnderDisruptionBudgetsAndReadsKafkasClientPropertiesFromASecret() throws Exception {
    List<Map<String, Object>> docs = render("overlays/production");
    Map<String, Object> config = docs.stream().filter(d -> "ConfigMap".equals(d.get("kind"))).findFirst().orElseThrow();
    Map<String, Object> data = map(config.get("data"), "configmap data");
    Set<String> anyFlag = new HashSet<>();
    DeploymentFilesTest.FLAGS_BY_COMMAND.values().forEach(anyFlag::addAll);
    for (Object key : data.keySet()) {
      assertThat(anyFlag).as("configmap key %s is a flag", key).contains(DeploymentFilesTest.flagOf(key.toString()));
    }
    String kafkaConfig = String.valueOf(data.get("UPDRAFT_KAFKA_CONFIG"));
    assertThat(kafkaConfig).as("UPDRAFT_KAFKA_CONFIG").startsWith("/");
    String kafkaDir = kafkaConfig.substring(0, kafkaConfig.lastIndexOf('/'));
    workloads(docs).forEach(w -> {
      Map<String, String> secretVolumes = new java.util.HashMap<>();
      for (Object v : list(at(w, "spec", "template", "spec", "volumes"), name(w) + " volumes")) {
        Object secret = at(v, "secret", "secretName");
        if (secret != null) {
          secretVolumes.put(map(v, "volume").get("name").toString(), secret.toString());
        }
      }
      for (Map<String, Object> c : containers(w)) {
        assertThat(list(c.get("envFrom"), name(w) + " envFrom").stream().map(e -> at(e, "configMapRef", "name")))
            .as("%s reads the configmap", name(w)).contains("updraft-config");
        boolean mounted = list(c.get("volumeMounts"), name(w) + " mounts").stream()
            .anyMatch(m -> kafkaDir.equals(at(m, "mountPath")) && "updraft-kafka-client".equals(secretVolumes.get(String.valueOf(at(m, "name")))));
        assertThat(mounted).as("%s mounts the secret updraft-kafka-client at %s", name(w), kafkaDir).isTrue();
      }
      if ("Deployment".equals(w.get("kind"))) {
        int replicas = ((Number) at(w, "spec", "replicas")).intValue();
        assertThat(replicas).as("%s replicas", name(w)).isGreaterThanOrEqualTo(3);
        Object labels = at(w, "spec", "template", "metadata", "labels");
        List<Map<String, Object>> budgets = docs.stream().filter(d -> "PodDisruptionBudget".equals(d.get("kind")))
            .filter(d -> map(labels, "labels").entrySet().containsAll(map(at(d, "spec", "selector", "matchLabels"), "selector").entrySet()))
            .toList();
        assertThat(budgets).as("%s has one PodDisruptionBudget", name(w)).hasSize(1);
        int minAvailable = ((Number) at(budgets.get(0), "spec", "minAvailable")).intValue();
        assertThat(minAvailable).as("%s budget keeps pods and still lets one go", name(w)).isBetween(1, replicas - 1);
      }
    });
    Map<String, Object> hpa = docs.stream().filter(d -> "HorizontalPodAutoscaler".equals(d.get("kind"))).findFirst().orElseThrow();
    assertThat(((Number) at(hpa, "spec", "minReplicas")).intValue()).as("the edge autoscaler's floor").isGreaterThanOrEqualTo(3);
  }
}
