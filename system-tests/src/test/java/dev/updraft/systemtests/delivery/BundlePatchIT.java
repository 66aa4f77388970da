package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bundle patches and encodings end to end, with the real control plane (edges serving launch assets),
 * a real edge and the real CLI on real Kafka: the fixture's update 1 then update 2 are published, and a
 * device on update 1 asks for update 2's launch asset with the headers every released client sends; so do fresh
 * installs of registered builds: one whose bundle no update publishes, one registered after the publish, and one
 * on an expo-updates release that cannot apply a patch from its embedded bundle (full bundle). The patch it gets is
 * applied with Debian's {@code bspatch} and the zstd and br answers are decoded with Debian's
 * {@code zstd} and {@code brotli} ({@code .ci/install-decoders.sh}): what a device ends up with must hash
 * to the manifest's {@code launchAsset.hash}. The telemetry database is unreachable on purpose: patches do
 * not need it.
 */
@ExtendWith(RealInfrastructure.class)
class BundlePatchIT {
  static final String APP = "diffs";
  static final String EMBEDDED = "0e5b1d2c-3f4a-4b6c-8d7e-9f0a1b2c3d4e";
  static final String OLD_CLIENT = "0e5b1d2c-3f4a-4b6c-8d7e-00000000c1d0";
  static final String EMBEDDED_LATE = "0e5b1d2c-3f4a-4b6c-8d7e-00000000a7e0";
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  static Vertx vertx;
  static Infra infra;
  static Path dataDir;
  static ControlPlane cp;
  static EdgeNode edge;
  static int edgePort;
  static final List<EdgeNode> others = new ArrayList<>();
  /** platform → [update-1 id, update-2 id]. */
  static final Map<String, String[]> ids = new HashMap<>();
  /** platform → update 2's manifest as the edge serves it. */
  static final Map<String, JsonNode> manifests = new HashMap<>();
  static String group2;

  @BeforeAll
  static void start(Infra in, @TempDir Path dir) throws Exception {
    infra = in;
    dataDir = dir;
    vertx = Vertx.vertx();
    edgePort = Ports.freePort();
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("kafka-bootstrap", infra.kafkaBootstrap());
    flags.put("topic-prefix", infra.topicPrefix());
    flags.put("control-port", "0");
    flags.put("bind", "127.0.0.1");
    flags.put("admin-token", Stack.ADMIN_TOKEN);
    flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    flags.put("data-dir", dir.toString());
    flags.put("edge-public-url", "http://127.0.0.1:" + edgePort);
    flags.put("postgres-url", "postgresql://postgres@127.0.0.1:1/none");
    // low levels: 40 s less of a 2-core CI run; EncodingsTest checks that best copies decode and are no larger
    flags.put("asset-encoding", "fast");
    cp = Stack.await(ControlPlane.start(vertx, ControlPlaneConfig.from(Settings.of(flags, Map.of()))));
    edge = startEdge("edge-diffs", edgePort);

    CliRunner cli = new CliRunner("http://127.0.0.1:" + cp.port(), Stack.ADMIN_TOKEN);
    cli.json("apps", "create", APP);
    JsonNode one = publish(cli, Fixtures.update1());
    // an iOS build whose embedded bundle no update publishes (update 1's, edited), on a client that applies such patches
    Files.write(dir.resolve("ios-embedded.hbc"), edited(bundle(Fixtures.update1(), "ios")));
    JsonNode build = register(cli, "ios", EMBEDDED, dir.resolve("ios-embedded.hbc"), "57.0.24");
    assertThat(build.path("embeddedUpdateId").asText()).isEqualTo(EMBEDDED);
    assertThat(build.path("embeddedPatches").asBoolean()).isTrue();
    // an iOS build on 57.0.22, before the fixes, embedding exactly update 1's bundle (a base for devices on update 1)
    JsonNode old = register(cli, "ios", OLD_CLIENT, bundlePath(Fixtures.update1(), "ios"), "57.0.22");
    assertThat(old.path("embeddedPatches").asBoolean()).isFalse();
    JsonNode two = publish(cli, Fixtures.update2());
    group2 = two.path("groupId").asText();
    for (JsonNode p : one.path("platforms")) {
      ids.put(p.path("platform").asText(), new String[] {p.path("updateId").asText(), null});
    }
    for (JsonNode p : two.path("platforms")) {
      ids.get(p.path("platform").asText())[1] = p.path("updateId").asText();
    }
    for (String platform : List.of("ios", "android")) {
      manifests.put(platform, manifest(platform, ids.get(platform)[0]));
    }
    awaitPatchesComputed();
    // an Android build registered after update 2's patches were computed: its base is patched then
    Files.write(dir.resolve("android-embedded.hbc"), edited(bundle(Fixtures.update1(), "android")));
    register(cli, "android", EMBEDDED_LATE, dir.resolve("android-embedded.hbc"), "56.0.27");
  }

  static JsonNode register(CliRunner cli, String platform, String embeddedId, Path bundle, String expoUpdatesVersion) {
    return cli.json("builds", "register", "--app", APP, "--platform", platform, "--runtime-version", "1.0.0",
        "--embedded-update-id", embeddedId, "--bundle", bundle.toString(), "--expo-updates-version", expoUpdatesVersion);
  }

  /** {@code bundle} with 256 bytes of its middle overwritten and a line added: a build made before update 1. */
  static byte[] edited(byte[] bundle) {
    byte[] out = java.util.Arrays.copyOf(bundle, bundle.length + 17);
    for (int i = 0; i < 256; i++) {
      out[bundle.length / 3 + i] = (byte) (i * 7);
    }
    System.arraycopy("\n// native build\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, out, bundle.length, 17);
    return out;
  }

  static JsonNode publish(CliRunner cli, Path dist) {
    return cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", dist.toString(), "--no-progress");
  }

  static EdgeNode startEdge(String id, int port) {
    Map<String, String> ed = new LinkedHashMap<>();
    ed.put("kafka-bootstrap", infra.kafkaBootstrap());
    ed.put("topic-prefix", infra.topicPrefix());
    ed.put("edge-port", Integer.toString(port));
    ed.put("bind", "127.0.0.1");
    ed.put("edge-id", id);
    ed.put("warmup-requests", "0"); // tests measure no speed; WarmupIT covers the warm-up
    ed.put("checkins", "false");
    EdgeNode e = Stack.await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, Map.of()))));
    Stack.awaitReady(e);
    return e;
  }

  @AfterAll
  static void stop() {
    for (EdgeNode e : others) {
      Stack.await(e.close());
    }
    if (edge != null) {
      Stack.await(edge.close());
    }
    if (cp != null) {
      Stack.await(cp.close());
    }
    if (vertx != null) {
      Stack.await(vertx.close());
    }
  }

  @Test
  void theLaunchAssetPointsAtTheEdgeAndOtherAssetsAtStorage() {
    for (JsonNode m : manifests.values()) {
      String sha = hex(m.path("launchAsset").path("hash").asText());
      assertThat(m.path("launchAsset").path("url").asText()).isEqualTo("http://127.0.0.1:" + edgePort + "/apps/" + APP + "/assets/" + sha);
      assertThat(m.path("assets")).isNotEmpty();
      for (JsonNode a : m.path("assets")) {
        assertThat(a.path("url").asText()).startsWith("http://127.0.0.1:" + cp.port() + "/assets/" + APP + "/");
      }
    }
  }

  @Test
  void theControlPlaneRecordsAPatchFromUpdate1AtMostHalfTheGzipSize() throws Exception {
    JsonNode view = api("/v1/apps/" + APP + "/updates/" + group2 + "/patches");
    assertThat(view.path("computed").asBoolean()).isTrue();
    assertThat(view.path("platforms")).hasSize(2);
    for (JsonNode p : view.path("platforms")) {
      long gzip = -1;
      for (JsonNode e : p.path("launchAsset").path("encodings")) {
        if (e.path("encoding").asText().equals("gzip")) {
          gzip = e.path("size").asLong();
        }
      }
      assertThat(gzip).as("a gzip copy of the %s bundle is stored", p.path("platform").asText()).isPositive();
      JsonNode patch = p.path("patches").get(0);
      assertThat(patch).as("a patch for %s", p.path("platform").asText()).isNotNull();
      assertThat(patch.path("baseUpdateIds").toString()).contains(ids.get(p.path("platform").asText())[0]);
      assertThat(patch.path("size").asLong() * 2).isLessThanOrEqualTo(gzip);
    }
  }

  @Test
  void anIosDeviceOnUpdate1GetsAPatchThatBspatchTurnsIntoTheBundle() throws Exception {
    JsonNode m = manifests.get("ios");
    String[] u = ids.get("ios");
    HttpResponse<byte[]> r = awaitPatch(m, released(u[0], u[1], UUID.randomUUID().toString(), "ios", "br, gzip, deflate"));
    assertThat(r.headers().firstValue("im")).hasValue("bsdiff");
    assertThat(r.headers().firstValue("expo-base-update-id")).hasValue(u[0]);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/vnd.bsdiff");
    assertThat(r.headers().firstValue("cache-control")).hasValue("private, no-store");
    assertThat(r.headers().firstValue("content-encoding")).isEmpty();
    assertThat(hash(bspatch(bundle(Fixtures.update1(), "ios"), r.body()))).isEqualTo(m.path("launchAsset").path("hash").asText());
  }

  @Test
  void anAndroidDeviceOnUpdate1GetsAPatchWithTheHeadersItChecks() throws Exception {
    JsonNode m = manifests.get("android");
    String[] u = ids.get("android");
    HttpResponse<byte[]> r = awaitPatch(m, released(u[0], u[1], UUID.randomUUID().toString(), "android", "zstd, br, gzip"));
    assertThat(r.headers().firstValue("im")).hasValue("bsdiff");
    assertThat(r.headers().firstValue("expo-base-update-id")).hasValue(u[0]);
    assertThat(hash(bspatch(bundle(Fixtures.update1(), "android"), r.body()))).isEqualTo(m.path("launchAsset").path("hash").asText());
  }

  @Test
  void aFreshInstallOfABuildWhoseBundleNoUpdatePublishesGetsAPatchFromIt() throws Exception {
    JsonNode m = manifests.get("ios");
    HttpResponse<byte[]> r = awaitPatch(m, released(EMBEDDED, ids.get("ios")[1], EMBEDDED, "ios", "br, gzip, deflate"));
    assertThat(r.headers().firstValue("expo-base-update-id")).hasValue(EMBEDDED);
    assertThat(hash(bspatch(edited(bundle(Fixtures.update1(), "ios")), r.body()))).isEqualTo(m.path("launchAsset").path("hash").asText());
  }

  @Test
  void aBuildRegisteredAfterThePublishGetsAPatchFromItsBundle() throws Exception {
    JsonNode m = manifests.get("android");
    HttpResponse<byte[]> r = awaitPatch(m, 120, released(EMBEDDED_LATE, ids.get("android")[1], EMBEDDED_LATE, "android", "zstd, br, gzip"));
    assertThat(r.headers().firstValue("expo-base-update-id")).hasValue(EMBEDDED_LATE);
    assertThat(hash(bspatch(edited(bundle(Fixtures.update1(), "android")), r.body()))).isEqualTo(m.path("launchAsset").path("hash").asText());
  }

  @Test
  void aFreshInstallOfABuildOnAnOldExpoUpdatesGetsTheFullBundleNoPatch() throws Exception {
    JsonNode m = manifests.get("ios");
    String[] u = ids.get("ios");
    // the same bundle is a base for devices on update 1: once they get patches, the old build's would have too
    awaitPatch(m, released(u[0], u[1], OLD_CLIENT, "ios", "br, gzip, deflate"));
    HttpResponse<byte[]> r = get(m, released(OLD_CLIENT, u[1], OLD_CLIENT, "ios", "gzip"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("im")).isEmpty();
    assertThat(r.headers().firstValue("expo-base-update-id")).isEmpty();
    assertThat(r.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(hash(new GZIPInputStream(new ByteArrayInputStream(r.body())).readAllBytes())).isEqualTo(m.path("launchAsset").path("hash").asText());
    JsonNode view = api("/v1/apps/" + APP + "/updates/" + group2 + "/patches");
    assertThat(view.toString()).doesNotContain(OLD_CLIENT);
    JsonNode builds = api("/v1/apps/" + APP + "/builds");
    assertThat(builds.toString()).contains("\"expoUpdatesVersion\":\"57.0.22\"");
  }

  @Test
  void updateShowPrintsTheGroupsPatches() {
    CliRunner cli = new CliRunner("http://127.0.0.1:" + cp.port(), Stack.ADMIN_TOKEN);
    CliRunner.Result r = cli.run("updates", "show", "--app", APP, "--update", group2);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("launch assets:", "patch from", ids.get("ios")[0], EMBEDDED, "zstd", "br", "gzip");
  }

  @Test
  void aDeviceOnAnUnknownUpdateGetsTheFullBundleNeverA304Or412() throws Exception {
    for (String platform : List.of("ios", "android")) {
      JsonNode m = manifests.get(platform);
      String unknown = UUID.randomUUID().toString();
      HttpResponse<byte[]> asked = get(m, released(unknown, ids.get(platform)[1], UUID.randomUUID().toString(), platform, null));
      HttpResponse<byte[]> plain = get(m);
      for (HttpResponse<byte[]> r : List.of(asked, plain)) {
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-encoding")).isEmpty();
        assertThat(hash(r.body())).isEqualTo(m.path("launchAsset").path("hash").asText());
      }
    }
  }

  @Test
  void zstdBrAndGzipAnswersDecodeToTheAssetsHash() throws Exception {
    JsonNode m = manifests.get("ios");
    String expected = m.path("launchAsset").path("hash").asText();
    HttpResponse<byte[]> zstd = get(m, "Accept-Encoding", "zstd, br, gzip");
    assertThat(zstd.headers().firstValue("content-encoding")).hasValue("zstd");
    assertThat(hash(tool(zstd.body(), "/usr/bin/zstd", "-d", "-c"))).isEqualTo(expected);
    HttpResponse<byte[]> br = get(m, "Accept-Encoding", "br, gzip, deflate");
    assertThat(br.headers().firstValue("content-encoding")).hasValue("br");
    assertThat(hash(tool(br.body(), "/usr/bin/brotli", "-d", "-c"))).isEqualTo(expected);
    HttpResponse<byte[]> gzip = get(m, "Accept-Encoding", "gzip");
    assertThat(gzip.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(hash(new GZIPInputStream(new ByteArrayInputStream(gzip.body())).readAllBytes())).isEqualTo(expected);
    // that best copies are smaller than gzip's is EncodingsTest's (this stack encodes at fast levels)
  }

  @Test
  void aCorruptOrMissingPatchIsNeverServed() throws Exception {
    JsonNode view = api("/v1/apps/" + APP + "/updates/" + group2 + "/patches");
    JsonNode ios = null;
    for (JsonNode p : view.path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        ios = p;
      }
    }
    Path stored = dataDir.resolve("assets").resolve(APP).resolve(ios.path("patches").get(0).path("sha256").asText());
    assertThat(stored).exists();
    byte[] good = Files.readAllBytes(stored);
    byte[] bad = good.clone();
    bad[bad.length / 2] ^= 0x5a;
    JsonNode m = manifests.get("ios");
    String[] u = ids.get("ios");
    try {
      Files.write(stored, bad);
      assertFullBundleFromFreshEdge(m, u, "sha256");
      Files.delete(stored);
      assertFullBundleFromFreshEdge(m, u, "io");
    } finally {
      Files.write(stored, good);
    }
  }

  /** A new edge (empty cache) that fetched the damaged patch answers the patch request with the full bundle. */
  private static void assertFullBundleFromFreshEdge(JsonNode m, String[] u, String failedCheck) throws Exception {
    int port = Ports.freePort();
    EdgeNode fresh = startEdge("edge-" + failedCheck, port);
    others.add(fresh);
    String metric = "updraft_edge_patch_fetches_total{result=\"" + failedCheck + "\"";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!metrics(port).contains(metric) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(metrics(port)).as("the fresh edge tried the patch and it failed its %s check", failedCheck).contains(metric);
    String url = m.path("launchAsset").path("url").asText().replace(":" + edgePort + "/", ":" + port + "/");
    HttpResponse<byte[]> r = send(url, released(u[0], u[1], UUID.randomUUID().toString(), "ios", null));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("im")).isEmpty();
    assertThat(hash(r.body())).isEqualTo(m.path("launchAsset").path("hash").asText());
    assertThat(metrics(port)).contains("updraft_edge_patch_misses_total{reason=\"not-loaded\"");
  }

  // ---------------------------------------------------------------- helpers

  static JsonNode manifest(String platform, String currentId) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edgePort + "/apps/" + APP + "/manifest"))
        .header("accept", "application/json").header("expo-platform", platform).header("expo-protocol-version", "1")
        .header("expo-runtime-version", "1.0.0").header("expo-channel-name", "main").header("expo-current-update-id", currentId)
        .header("eas-client-id", UUID.randomUUID().toString()).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as("manifest for %s: %s", platform, new String(r.body())).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  static void awaitPatchesComputed() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!api("/v1/apps/" + APP + "/updates/" + group2 + "/patches").path("computed").asBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("patches of group " + group2 + " not computed within 120 s");
      }
      Thread.sleep(200);
    }
  }

  /**
   * The headers every expo-updates release from 55.0.0 to 57.0.24 sends asking for a patch (iOS and Android
   * alike): {@code A-IM: bsdiff}, {@code Accept: *}{@code /*} and the three update ids, with the platform
   * and, when not null, an {@code Accept-Encoding}.
   */
  static String[] released(String current, String requested, String embedded, String platform, String acceptEncoding) {
    List<String> h = new ArrayList<>(List.of("A-IM", "bsdiff", "Accept", "*/*", "expo-current-update-id", current,
        "expo-requested-update-id", requested, "expo-embedded-update-id", embedded, "expo-platform", platform,
        "expo-runtime-version", "1.0.0"));
    if (acceptEncoding != null) {
      h.addAll(List.of("Accept-Encoding", acceptEncoding));
    }
    return h.toArray(new String[0]);
  }

  /** The patch answer, once the edge's cache holds it (it loads in the background). */
  static HttpResponse<byte[]> awaitPatch(JsonNode m, String... headers) throws Exception {
    return awaitPatch(m, 30, headers);
  }

  /** The patch answer within {@code seconds}. */
  static HttpResponse<byte[]> awaitPatch(JsonNode m, int seconds, String... headers) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    HttpResponse<byte[]> r = get(m, headers);
    while (r.statusCode() != 226 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      r = get(m, headers);
    }
    assertThat(r.statusCode()).as("a patch answer").isEqualTo(226);
    return r;
  }

  static JsonNode api(String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cp.port() + path))
        .header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  static HttpResponse<byte[]> get(JsonNode manifest, String... headers) throws Exception {
    return send(manifest.path("launchAsset").path("url").asText(), headers);
  }

  static HttpResponse<byte[]> send(String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static String metrics(int port) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  static byte[] bundle(Path dist, String platform) throws IOException {
    return Files.readAllBytes(bundlePath(dist, platform));
  }

  static Path bundlePath(Path dist, String platform) throws IOException {
    try (Stream<Path> s = Files.list(dist.resolve("_expo/static/js").resolve(platform))) {
      return s.filter(p -> p.toString().endsWith(".hbc")).findFirst().orElseThrow();
    }
  }

  /** Debian's bspatch applied to {@code base} and {@code patch}. */
  static byte[] bspatch(byte[] base, byte[] patch) throws Exception {
    Path dir = Files.createTempDirectory("bspatch");
    try {
      Path old = Files.write(dir.resolve("old"), base);
      Path p = Files.write(dir.resolve("patch"), patch);
      Path out = dir.resolve("new");
      Process proc = new ProcessBuilder("/usr/bin/bspatch", old.toString(), out.toString(), p.toString()).redirectErrorStream(true).start();
      String said = new String(proc.getInputStream().readAllBytes());
      assertThat(proc.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(proc.exitValue()).as("bspatch: %s (install bsdiff: .ci/install-decoders.sh)", said).isZero();
      return Files.readAllBytes(out);
    } finally {
      try (Stream<Path> s = Files.list(dir)) {
        for (Path f : s.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  /** {@code input} through an external decoder (stdin to stdout). */
  static byte[] tool(byte[] input, String... command) throws Exception {
    assertThat(Path.of(command[0])).as("%s (install it: .ci/install-decoders.sh)", command[0]).exists();
    Path in = Files.createTempFile("encoded", ".bin");
    try {
      Files.write(in, input);
      Process proc = new ProcessBuilder(command).redirectInput(in.toFile()).start();
      byte[] out = proc.getInputStream().readAllBytes();
      assertThat(proc.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(proc.exitValue()).as("%s: %s", command[0], new String(proc.getErrorStream().readAllBytes())).isZero();
      return out;
    } finally {
      Files.deleteIfExists(in);
    }
  }

  static String hash(byte[] b) throws Exception {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256").digest(b));
  }

  static String hex(String base64Url) {
    return java.util.HexFormat.of().formatHex(Base64.getUrlDecoder().decode(base64Url));
  }
}
