package dev.updraft.systemtests.ci;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The GitHub Action's script ({@code .github/actions/publish/publish.sh}) run as the runner runs it: inputs as
 * {@code INPUT_*} variables, GitHub's {@code GITHUB_*} variables of a pull request, {@code GITHUB_OUTPUT}
 * and {@code GITHUB_STEP_SUMMARY} files, against a real control plane and edge: the pull request's preview
 * is published to branch {@code pr-<n>}, a release build reaches it through the {@code updraft-channel} extra
 * param, a re-run of the job publishes nothing twice, and closing the pull request deletes the branch. The
 * inputs are those of docs/ci.md's preview workflow (its {@code publish} and {@code close} jobs), and every
 * input the workflow names is one action.yml declares and hands to the script.
 */
@ExtendWith(RealInfrastructure.class)
public class PublishActionIT {
  /** The app docs/ci.md's recipe publishes. */
  static final String APP = "mobile";
  static final int PR = 42;

  @TempDir Path work;

  /** Finds the repository root (the directory with docker-compose.yml and .github). */
  public static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    for (int i = 0; i < 4 && p != null; i++, p = p.getParent()) {
      if (Files.exists(p.resolve(".github/actions/publish/publish.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("no .github/actions/publish/publish.sh above " + Path.of("").toAbsolutePath());
  }

  public record Run(int status, String out, String err, Map<String, String> outputs, String summary) {}

  /** Runs the action's script with the environment a pull_request job on GitHub's runner gives it. */
  Run action(Map<String, String> inputs) throws IOException, InterruptedException {
    return run(work, inputs);
  }

  /** Runs the action's script in {@code work} as a pull_request job's runner would, with {@code inputs} (and overrides) on top. */
  public static Run run(Path work, Map<String, String> inputs) throws IOException, InterruptedException {
    Path root = repoRoot();
    Path jar = root.resolve("launcher/target/updraft.jar");
    assertThat(jar).as("the launcher jar (the launcher module's package phase builds it before these tests)").isRegularFile();
    Path output = Files.createTempFile(work, "github-output", "");
    Path summary = Files.createTempFile(work, "step-summary", "");
    Path runnerTemp = Files.createDirectories(work.resolve("runner-temp"));
    ProcessBuilder b = new ProcessBuilder("bash", root.resolve(".github/actions/publish/publish.sh").toString()).directory(work.toFile());
    Map<String, String> env = b.environment();
    env.keySet().removeIf(k -> k.startsWith("GITHUB_") || k.startsWith("INPUT_") || k.startsWith("UPDRAFT_"));
    env.putAll(Map.of("GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME", "pull_request", "GITHUB_REF", "refs/pull/" + PR + "/merge",
        "GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567", "GITHUB_REPOSITORY", "acme/mobile", "GITHUB_RUN_ID", "9001",
        "GITHUB_RUN_ATTEMPT", "1", "GITHUB_OUTPUT", output.toString(), "GITHUB_STEP_SUMMARY", summary.toString(),
        "RUNNER_TEMP", runnerTemp.toString()));
    env.put("GITHUB_ACTION_PATH", root.resolve(".github/actions/publish").toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("PR_TITLE", "Brighter buttons");
    env.put("INPUT_CLI_JAR", jar.toString());
    env.putAll(inputs);
    Path out = work.resolve("out.txt");
    Path err = work.resolve("err.txt");
    Process p = b.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("publish.sh did not finish in 120 s: " + Files.readString(err));
    }
    Map<String, String> outputs = new LinkedHashMap<>();
    for (String line : Files.readAllLines(output)) {
      int eq = line.indexOf('=');
      outputs.put(line.substring(0, eq), line.substring(eq + 1));
    }
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err), outputs, Files.readString(summary));
  }

  /** A job of docs/ci.md's preview workflow: the action step's {@code with:} as the INPUT_* variables action.yml sets. */
  @SuppressWarnings("unchecked")
  static Map<String, String> recipe(String job, String server, String token) throws IOException {
    Path root = repoRoot();
    String doc = Files.readString(root.resolve("docs/ci.md"));
    int a = doc.indexOf("```yaml\n");
    assertThat(a).as("docs/ci.md has the workflow in a ```yaml block").isNotNegative();
    Map<String, Object> workflow = new Yaml().load(doc.substring(a + 8, doc.indexOf("\n```", a + 8)));
    Map<String, Object> j = (Map<String, Object>) ((Map<String, Object>) workflow.get("jobs")).get(job);
    assertThat(j).as("the workflow's job %s", job).isNotNull();
    assertThat(String.valueOf(j.get("if"))).as("%s runs on the pull request's events", job)
        .isEqualTo(job.equals("close") ? "github.event.action == 'closed'" : "github.event.action != 'closed'");
    Map<String, Object> action = new Yaml().load(Files.readString(root.resolve(".github/actions/publish/action.yml")));
    Set<String> declared = ((Map<String, Object>) action.get("inputs")).keySet();
    Map<String, Object> step = ((List<Map<String, Object>>) j.get("steps")).stream()
        .filter(st -> String.valueOf(st.get("uses")).contains("/.github/actions/publish@")).findFirst().orElseThrow();
    List<Map<String, Object>> steps = (List<Map<String, Object>>) ((Map<String, Object>) action.get("runs")).get("steps");
    Map<String, Object> handed = (Map<String, Object>) steps.get(steps.size() - 1).get("env");
    Map<String, String> inputs = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : ((Map<String, Object>) step.get("with")).entrySet()) {
      assertThat(declared).as("action.yml declares the input %s the recipe sets", e.getKey()).contains(e.getKey());
      String name = "INPUT_" + e.getKey().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
      assertThat(handed).as("action.yml hands %s to the script as %s", e.getKey(), name)
          .containsEntry(name, "${{ inputs." + e.getKey() + " }}");
      String v = String.valueOf(e.getValue()).replace("${{ vars.UPDRAFT_SERVER }}", server).replace("${{ secrets.UPDRAFT_TOKEN }}", token);
      assertThat(v).as("%s: an expression the test does not know", e.getKey()).doesNotContain("${{");
      inputs.put(name, v);
    }
    return inputs;
  }

  /** What a release build on channel production, with the updraft-channel extra param set to the preview, is served. */
  static String servedUpdateId(Stack stack, String channelOverride) throws Exception {
    HttpResponse<byte[]> r = Http.getBytes(stack.edgeUrl() + "/apps/" + APP + "/manifest", "expo-platform", "ios",
        "expo-runtime-version", "1.0.0", "expo-channel-name", "production", "expo-protocol-version", "1",
        "eas-client-id", "6f1c3a52-36c5-4a59-9a57-46a3a0f0d9b1", "accept", "multipart/mixed",
        "expo-extra-params", "updraft-channel=\"" + channelOverride + "\"");
    if (r.statusCode() != 200) {
      return "status " + r.statusCode();
    }
    MultipartPart m = StrictMultipartParser.parse(r.headers().firstValue("content-type").orElseThrow(), r.body()).part("manifest");
    return m == null ? null : new ObjectMapper().readTree(m.bodyText()).get("id").asText();
  }

  static String awaitServed(Stack stack, String override, String wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = servedUpdateId(stack, override);
    while (!java.util.Objects.equals(last, wanted) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      last = servedUpdateId(stack, override);
    }
    return last;
  }

  @Test
  void aPullRequestsPreviewIsPublishedToItsBranchServedThroughTheExtraParamAndDeletedWhenClosed(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, work.resolve("data"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP);
      String token = cli.json("tokens", "create", "--app", APP, "--role", "publish", "--label", "github").get("token").asText();
      copy(Fixtures.update1(), work.resolve("dist"));

      Map<String, String> publish = recipe("publish", stack.controlUrl(), token);
      Map<String, String> close = recipe("close", stack.controlUrl(), token);
      assertThat(publish).containsEntry("INPUT_APP", APP);
      Run published = action(publish);
      assertThat(published.status()).as("publish.sh: %s%s", published.out(), published.err()).isZero();
      assertThat(published.out() + published.err()).as("the token is never printed").doesNotContain(token.substring(8));
      String group = published.outputs().get("group-id");
      JsonNode listed = cli.json("updates", "--app", APP);
      JsonNode g = null;
      for (JsonNode n : listed.path("items").isMissingNode() ? listed : listed.path("items")) {
        if (n.path("groupId").asText().equals(group)) {
          g = n;
        }
      }
      assertThat(g).as("the group the action names is the server's: %s in %s", group, listed).isNotNull();
      assertThat(g.path("branch").asText()).isEqualTo("pr-" + PR);
      assertThat(g.path("message").asText()).isEqualTo("PR #42: Brighter buttons");
      assertThat(published.outputs()).containsEntry("branch", "pr-42").containsEntry("runtime-version", "1.0.0")
          .containsEntry("link", stack.controlUrl() + "/console/#/apps/" + APP + "/updates/" + group);
      assertThat(published.out()).contains(published.outputs().get("link"));
      String iosUpdate = null;
      for (JsonNode p : g.path("platforms")) {
        if (p.path("platform").asText().equals("ios")) {
          iosUpdate = p.path("updateId").asText();
        }
      }
      assertThat(iosUpdate).as("the group has an iOS update").isNotNull();
      assertThat(published.summary()).contains(group, iosUpdate, "updraft-channel");

      // a release build opens the preview through the extra param
      assertThat(awaitServed(stack, "pr-" + PR, iosUpdate)).as("the preview served to a device with updraft-channel=pr-42").isEqualTo(iosUpdate);

      // the same job attempt re-run: the same group, not a second one
      Run again = action(publish);
      assertThat(again.status()).as(again.err()).isZero();
      assertThat(again.outputs().get("group-id")).isEqualTo(group);

      // the pull request closes: the branch goes, the device is served no update from it
      Run closed = action(close);
      assertThat(closed.status()).as(closed.err()).isZero();
      assertThat(closed.outputs()).containsEntry("branch", "pr-42").containsEntry("group-id", "");
      assertThat(cli.run("branches", "--app", APP, "--json").out()).doesNotContain("pr-42");
      assertThat(awaitServed(stack, "pr-" + PR, null)).as("no update once the preview branch is deleted").isNull();
      Run closedTwice = action(close);
      assertThat(closedTwice.status()).as(closedTwice.err()).isZero();
      assertThat(closedTwice.out()).contains("did not exist");

      // bad input: no token, no branch outside a pull request
      Map<String, String> noTokenInputs = new LinkedHashMap<>(publish);
      noTokenInputs.put("INPUT_TOKEN", "");
      Run noToken = action(noTokenInputs);
      assertThat(noToken.status()).isEqualTo(2);
      assertThat(noToken.err()).contains("::error", "token is required");
      Map<String, String> onPush = new LinkedHashMap<>(publish);
      onPush.putAll(Map.of("GITHUB_REF", "refs/heads/main", "GITHUB_EVENT_NAME", "push"));
      Run noBranch = action(onPush);
      assertThat(noBranch.status()).isEqualTo(2);
      assertThat(noBranch.err()).contains("branch is required outside a pull request");
    }
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
