package dev.updraft.systemtests.publish;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.systemtests.ci.PublishActionIT;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updraft publish} in a real Expo project with {@code runtimeVersion: {"policy": "fingerprint"}}
 * (fixtures/expo-fingerprint, installed from npm by {@code .ci/install-npm-fixtures.sh} into
 * ~/.cache/updraft): the runtime version of each platform is what expo-updates' own CLI resolves in the
 * project (run here by the test, apart from the CLI), one group per runtime version when they differ, and a
 * device of that runtime version is served the update. Without the installed project the test is skipped
 * on a developer's machine and fails in CI.
 */
@ExtendWith(RealInfrastructure.class)
class FingerprintPublishIT {
  static final String APP = "fingerprint";

  @TempDir Path work;

  static Path project() throws IOException {
    String cache = System.getenv("UPDRAFT_NPM_CACHE");
    Path dir = Path.of(cache != null ? cache : System.getProperty("user.home") + "/.cache/updraft", "expo-fingerprint");
    if (!Files.isRegularFile(dir.resolve("node_modules/expo-updates/bin/cli.js"))) {
      String why = "the Expo project is not installed at " + dir + " (bash .ci/install-npm-fixtures.sh)";
      if (System.getenv("CI") != null) {
        throw new AssertionError(why + ": CI must install it");
      }
      Assumptions.abort(why + "; CI fails here");
    }
    Path fixture = Fixtures.root().resolve("expo-fingerprint");
    for (String f : List.of("package.json", "app.json")) {
      assertThat(Files.readString(dir.resolve(f))).as("%s of the installed project is the fixture's (rerun .ci/install-npm-fixtures.sh)", f)
          .isEqualTo(Files.readString(fixture.resolve(f)));
    }
    return dir;
  }

  /** What expo-updates' CLI resolves in the project, run the way npx runs it. */
  static String expoResolves(Path project, String platform) throws Exception {
    Process p = new ProcessBuilder(node(), "node_modules/expo-updates/bin/cli.js", "runtimeversion:resolve", "--platform", platform)
        .directory(project.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("expo-updates runtimeversion:resolve finished").isTrue();
    assertThat(p.exitValue()).isZero();
    String printed = new String(out, java.nio.charset.StandardCharsets.UTF_8).strip();
    return new ObjectMapper().readTree(printed.substring(printed.lastIndexOf("\n{") + 1)).get("runtimeVersion").asText();
  }

  static String node() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (new File(d, "node").canExecute()) {
        return new File(d, "node").getPath();
      }
    }
    throw new AssertionError("node is not on the PATH");
  }

  static String served(Stack stack, String platform, String runtime) throws Exception {
    HttpResponse<byte[]> r = Http.getBytes(stack.edgeUrl() + "/apps/" + APP + "/manifest", "expo-platform", platform,
        "expo-runtime-version", runtime, "expo-channel-name", "production", "expo-protocol-version", "1",
        "eas-client-id", "2b0c8f8e-5f55-4a7e-9a37-0d7a3c1c5e11", "accept", "multipart/mixed");
    if (r.statusCode() != 200) {
      return "status " + r.statusCode();
    }
    MultipartPart m = StrictMultipartParser.parse(r.headers().firstValue("content-type").orElseThrow(), r.body()).part("manifest");
    return m == null ? null : new ObjectMapper().readTree(m.bodyText()).get("id").asText();
  }

  static String awaitServed(Stack stack, String platform, String runtime, String wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = served(stack, platform, runtime);
    while (!Objects.equals(last, wanted) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      last = served(stack, platform, runtime);
    }
    return last;
  }

  @Test
  void publishResolvesTheFingerprintWithExpoUpdatesAndADeviceOfThatRuntimeGetsTheUpdate(Infra infra) throws Exception {
    Path project = project();
    Map<String, String> expected = new HashMap<>();
    for (String p : List.of("ios", "android")) {
      expected.put(p, expoResolves(project, p));
    }
    // the export, with the public config of a fingerprint project (as npx expo config --type public --json writes it)
    Path dist = work.resolve("dist");
    copy(Fixtures.update1(), dist);
    ObjectNode config = (ObjectNode) new ObjectMapper().readTree(dist.resolve("expoConfig.json").toFile());
    config.putObject("runtimeVersion").put("policy", "fingerprint");
    Files.writeString(dist.resolve("expoConfig.json"), config.toString());

    try (Stack stack = Stack.start(infra, work.resolve("data"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP);

      // no expo-updates in the project: refused, nothing published
      Path bare = Files.createDirectories(work.resolve("bare"));
      CliRunner.Result refused = cli.run("publish", "--app", APP, "--branch", "production", "--dist", dist.toString(),
          "--project-dir", bare.toString(), "--no-progress");
      assertThat(refused.status()).as(refused.err()).isEqualTo(2);
      assertThat(refused.err()).contains("has no expo-updates installed", "--runtime-version");
      assertThat(cli.json("updates", "--app", APP).toString()).doesNotContain("groupId");

      CliRunner.Result r = cli.run("publish", "--app", APP, "--branch", "production", "--dist", dist.toString(),
          "--project-dir", project.toString(), "--no-progress", "--json");
      assertThat(r.status()).as(r.err()).isZero();
      for (String p : List.of("ios", "android")) {
        assertThat(r.err()).as("publish prints what it resolved").contains("runtime version for " + p + ": " + expected.get(p));
      }
      JsonNode printed = r.json();
      List<JsonNode> groups = printed.isArray() ? List.copyOf(iterable(printed)) : List.of(printed);
      assertThat(groups).as("one group per distinct runtime version")
          .hasSize(expected.get("ios").equals(expected.get("android")) ? 1 : 2);
      for (JsonNode g : groups) {
        for (JsonNode u : g.get("platforms")) {
          String p = u.get("platform").asText();
          assertThat(g.get("runtimeVersion").asText()).as("%s's runtime version is expo-updates'", p).isEqualTo(expected.get(p));
          assertThat(awaitServed(stack, p, expected.get(p), u.get("updateId").asText()))
              .as("a %s device of runtime %s gets the update", p, expected.get(p)).isEqualTo(u.get("updateId").asText());
        }
      }
      // a device of a guessed runtime version gets nothing
      assertThat(served(stack, "ios", "1.0.0")).isNull();

      // the GitHub Action in the same project: its outputs name every group, in the CLI's order
      PublishActionIT.Run action = PublishActionIT.run(work, Map.of("INPUT_SERVER", stack.controlUrl(), "INPUT_TOKEN", Stack.ADMIN_TOKEN,
          "INPUT_APP", APP, "INPUT_DIST", dist.toString(), "INPUT_PROJECT_DIR", project.toString(), "INPUT_BRANCH", "from-action"));
      assertThat(action.status()).as(action.err()).isZero();
      List<String> actionGroups = List.of(action.outputs().get("group-id").split(","));
      List<String> actionRuntimes = List.of(action.outputs().get("runtime-version").split(","));
      assertThat(actionGroups).hasSize(groups.size());
      List<String> expectedRuntimes = new java.util.ArrayList<>();
      for (JsonNode g : groups) {
        expectedRuntimes.add(g.get("runtimeVersion").asText());
      }
      assertThat(actionRuntimes).as("the action's runtime versions: expo-updates' per platform").isEqualTo(expectedRuntimes);
      assertThat(action.outputs().get("link").split(" ")).hasSize(groups.size());
      assertThat(action.summary()).contains(actionGroups.toArray(new String[0]));
    }
  }

  static List<JsonNode> iterable(JsonNode array) {
    List<JsonNode> out = new java.util.ArrayList<>();
    array.forEach(out::add);
    return out;
  }

  static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }
}
