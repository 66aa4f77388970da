package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Patches devices could not use, end to end on real Kafka and PostgreSQL with the real control plane,
 * ingester, edges and CLI: fresh installs of a registered build (expo-updates 57.0.24) take a 226 from its
 * embedded bundle and then download the full bundle, as expo-updates does when a patch fails. The edge counts
 * each, stops serving patches from that base at the threshold (20 failed, half of those served), the ingester
 * stores the counts, the API shows them per base and per build, and the control plane stops the base for every
 * edge: a new edge, which saw no failure, serves those devices the full bundle while devices on update 1 still
 * get their patch.
 */
@ExtendWith(RealInfrastructure.class)
class PatchFailuresIT {
  static final String APP = "failing";
  static final String EMBEDDED = "0e5b1d2c-3f4a-4b6c-8d7e-00000000fa11";
  static final int FAILURES = 20;

  static Stack stack;
  static EdgeNode edge;
  static int edgePort;
  static String url;
  static String expectedHash;
  static String[] ios;
  static String group2;
  static final List<EdgeNode> others = new ArrayList<>();

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    edgePort = Ports.freePort();
    stack = Stack.start(infra, dir.resolve("data"), Map.of("edge-public-url", "http://127.0.0.1:" + edgePort));
    edge = stack.startEdge("edge-patches", Map.of("edge-port", Integer.toString(edgePort)));
    CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
    cli.json("apps", "create", APP);
    JsonNode one = publish(cli, Fixtures.update1());
    Files.write(dir.resolve("embedded.hbc"), BundlePatchIT.edited(BundlePatchIT.bundle(Fixtures.update1(), "ios")));
    cli.json("builds", "register", "--app", APP, "--platform", "ios", "--runtime-version", "1.0.0", "--embedded-update-id", EMBEDDED,
        "--bundle", dir.resolve("embedded.hbc").toString(), "--expo-updates-version", "57.0.24");
    JsonNode two = publish(cli, Fixtures.update2());
    group2 = two.path("groupId").asText();
    ios = new String[] {updateId(one), updateId(two)};
    until("patches of update 2 computed", 120, () -> api("/v1/apps/" + APP + "/updates/" + group2 + "/patches").path("computed").asBoolean());
    JsonNode m = BundlePatchIT.JSON.readTree(send("http://127.0.0.1:" + edgePort + "/apps/" + APP + "/manifest", "accept", "application/json",
        "expo-platform", "ios", "expo-protocol-version", "1", "expo-runtime-version", "1.0.0", "expo-channel-name", "main",
        "expo-current-update-id", EMBEDDED, "expo-embedded-update-id", EMBEDDED, "eas-client-id", "manifest-reader").body());
    url = m.path("launchAsset").path("url").asText();
    expectedHash = m.path("launchAsset").path("hash").asText();
  }

  static JsonNode publish(CliRunner cli, Path dist) {
    return cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", dist.toString(), "--no-progress");
  }

  static String updateId(JsonNode published) {
    for (JsonNode p : published.path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        return p.path("updateId").asText();
      }
    }
    throw new AssertionError("no ios update in " + published);
  }

  @AfterAll
  static void stop() {
    for (EdgeNode e : others) {
      Stack.await(e.close());
    }
    if (edge != null) {
      Stack.await(edge.close());
    }
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void failedPatchesAreCountedPerBaseAndBuildAndStopTheBaseOnEveryEdge() throws Exception {
    // fresh installs: a 226 from the embedded bundle, then the full bundle without A-IM (the client's fallback)
    for (int i = 0; i < FAILURES; i++) {
      String client = "device-" + i;
      HttpResponse<byte[]> patch = i == 0 ? awaitPatch(edgePort, EMBEDDED, client) : send(url, asking(EMBEDDED, client, true));
      assertThat(patch.statusCode()).as("device %d gets a patch", i).isEqualTo(226);
      HttpResponse<byte[]> full = send(url, asking(EMBEDDED, client, false));
      assertThat(full.statusCode()).isEqualTo(200);
      assertThat(BundlePatchIT.hash(full.body())).isEqualTo(expectedHash);
    }
    // this edge stopped the base on its own count
    HttpResponse<byte[]> after = send(url, asking(EMBEDDED, "device-late", true));
    assertThat(after.statusCode()).as("the next device on the failing base").isEqualTo(200);
    assertThat(BundlePatchIT.hash(after.body())).isEqualTo(expectedHash);
    String metrics = BundlePatchIT.metrics(edgePort);
    assertThat(metrics).contains("updraft_edge_patch_failures_total{base=\"embedded\"} " + FAILURES + ".0")
        .contains("updraft_edge_patch_misses_total{reason=\"failing-base\"} 1.0").contains("updraft_edge_patch_bases_stopped 1.0");

    // the counts reach PostgreSQL and the API: per build and per base of the update
    until("the build's failed patches in the API", 120, () -> api("/v1/apps/" + APP + "/builds").path("builds").get(0).path("patchesFailed").asLong() == FAILURES);
    JsonNode build = api("/v1/apps/" + APP + "/builds").path("builds").get(0);
    assertThat(build.path("patchesServed").asLong()).isEqualTo(FAILURES);
    assertThat(build.path("patchesStopped").asBoolean()).isTrue();
    JsonNode outcome = iosOf(api("/v1/apps/" + APP + "/updates/" + group2 + "/patches")).path("patchOutcomes").get(0);
    assertThat(outcome.path("baseUpdateId").asText()).isEqualTo(EMBEDDED);
    assertThat(outcome.path("fromEmbedded").asBoolean()).isTrue();
    assertThat(outcome.path("served").asLong()).isEqualTo(FAILURES);
    assertThat(outcome.path("failed").asLong()).isEqualTo(FAILURES);
    assertThat(outcome.path("baseStopped").asBoolean()).isTrue();
    CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
    CliRunner.Result shown = cli.run("updates", "show", "--app", APP, "--update", group2);
    assertThat(shown.status()).as(shown.err()).isZero();
    assertThat(shown.out()).contains("from " + EMBEDDED + " (embedded): " + FAILURES + " patches served, " + FAILURES
        + " devices could not use theirs; no more patches from it");
    CliRunner.Result builds = cli.run("builds", "list", "--app", APP);
    assertThat(builds.out()).contains(EMBEDDED, "expo-updates 57.0.24", "patches stopped (too many failed)", FAILURES + " served, " + FAILURES + " failed");

    // the control plane takes the base out of the recorded patches: an edge that saw no failure serves it no patch
    until("the embedded base leaves update 2's patches", 120,
        () -> !iosOf(api("/v1/apps/" + APP + "/updates/" + group2 + "/patches")).path("patches").toString().contains(EMBEDDED));
    int port = Ports.freePort();
    EdgeNode fresh = stack.startEdge("edge-fresh", Map.of("edge-port", Integer.toString(port)));
    others.add(fresh);
    HttpResponse<byte[]> update1 = awaitPatch(port, ios[0], "device-on-update-1");
    assertThat(update1.headers().firstValue("expo-base-update-id")).as("other bases keep their patches").hasValue(ios[0]);
    HttpResponse<byte[]> embedded = send(onEdge(port), asking(EMBEDDED, "device-fresh", true));
    assertThat(embedded.statusCode()).isEqualTo(200);
    assertThat(embedded.headers().firstValue("im")).isEmpty();
    assertThat(BundlePatchIT.hash(embedded.body())).isEqualTo(expectedHash);
  }

  static JsonNode iosOf(JsonNode view) {
    for (JsonNode p : view.path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        return p;
      }
    }
    throw new AssertionError("no ios platform in " + view);
  }

  /** The headers a released iOS client sends for update 2's launch asset, with A-IM or as its fallback without. */
  static String[] asking(String current, String client, boolean patch) {
    List<String> h = new ArrayList<>(Arrays.asList(BundlePatchIT.released(current, ios[1], EMBEDDED, "ios", null)));
    h.addAll(List.of("eas-client-id", client));
    if (!patch) {
      int i = h.indexOf("A-IM");
      h.remove(i + 1);
      h.remove(i);
    }
    return h.toArray(new String[0]);
  }

  static String onEdge(int port) {
    return url.replace(":" + edgePort + "/", ":" + port + "/");
  }

  /** The first patch answer of an edge, once its cache holds the patch. */
  static HttpResponse<byte[]> awaitPatch(int port, String current, String client) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    HttpResponse<byte[]> r = send(onEdge(port), asking(current, client, true));
    while (r.statusCode() != 226 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      r = send(onEdge(port), asking(current, client, true));
    }
    assertThat(r.statusCode()).as("a patch answer from %s", current).isEqualTo(226);
    assertThat(BundlePatchIT.hash(BundlePatchIT.bspatch(current.equals(EMBEDDED)
        ? BundlePatchIT.edited(BundlePatchIT.bundle(Fixtures.update1(), "ios")) : BundlePatchIT.bundle(Fixtures.update1(), "ios"), r.body())))
        .isEqualTo(expectedHash);
    return r;
  }

  static HttpResponse<byte[]> send(String to, String... headers) throws Exception {
    return BundlePatchIT.send(to, headers);
  }

  static JsonNode api(String path) {
    try {
      HttpResponse<String> r = BundlePatchIT.HTTP.send(HttpRequest.newBuilder(URI.create(stack.controlUrl() + path))
          .header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
      return BundlePatchIT.JSON.readTree(r.body());
    } catch (Exception e) {
      throw new AssertionError(path, e);
    }
  }

  static void until(String what, int seconds, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": not within " + seconds + " s");
      }
      Thread.sleep(200);
    }
  }
}
