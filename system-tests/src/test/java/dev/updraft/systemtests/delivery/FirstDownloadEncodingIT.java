package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first launch-asset download after a publish is compressed, whatever the client takes among zstd, br and
 * gzip, although the control plane's stored copies (best levels: several seconds of CPU per bundle) do not
 * exist yet; those first answers are not cacheable for a year, the stored ones are; {@code Vary} names what
 * chose each answer. Real control plane (edges serve launch assets), real edge, the real CLI, real Kafka;
 * answers decoded with Debian's {@code zstd}, {@code brotli} and {@code gzip} ({@code .ci/install-decoders.sh}).
 * Each request is sent as soon as the edge serves the update's manifest, milliseconds after the publish.
 */
@ExtendWith(RealInfrastructure.class)
class FirstDownloadEncodingIT {
  static final String APP = "first";
  static final String INTERIM = "public, max-age=30";
  static final String IMMUTABLE = "public, max-age=31536000, immutable";

  Vertx vertx;
  ControlPlane cp;
  EdgeNode edge;

  @AfterEach
  void stop() {
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
  void theFirstDownloadAfterAPublishIsCompressedAndOnlyTheStoredCopiesAreImmutable(Infra infra, @TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    int edgePort = Ports.freePort();
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
    // the default (best) levels: the stored copies take seconds, the window the first devices fall into
    cp = Stack.await(ControlPlane.start(vertx, ControlPlaneConfig.from(Settings.of(flags, Map.of()))));
    Map<String, String> ed = new LinkedHashMap<>();
    ed.put("kafka-bootstrap", infra.kafkaBootstrap());
    ed.put("topic-prefix", infra.topicPrefix());
    ed.put("edge-port", Integer.toString(edgePort));
    ed.put("bind", "127.0.0.1");
    ed.put("edge-id", "edge-first");
    ed.put("warmup-requests", "0");
    ed.put("checkins", "false");
    edge = Stack.await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, Map.of()))));
    Stack.awaitReady(edge);
    CliRunner cli = new CliRunner("http://127.0.0.1:" + cp.port(), Stack.ADMIN_TOKEN);
    cli.json("apps", "create", APP);

    JsonNode one = publish(cli, Fixtures.update1());
    String android1 = updateId(one, "android");
    String ios1 = updateId(one, "ios");
    JsonNode androidManifest = awaitManifest(edgePort, "android", UUID.randomUUID().toString(), android1);
    HttpResponse<byte[]> zstd = BundlePatchIT.get(androidManifest, "Accept-Encoding", "zstd, br, gzip");
    JsonNode iosManifest = awaitManifest(edgePort, "ios", UUID.randomUUID().toString(), ios1);
    HttpResponse<byte[]> br = BundlePatchIT.get(iosManifest, "Accept-Encoding", "br, gzip, deflate");
    HttpResponse<byte[]> gzip = BundlePatchIT.get(androidManifest, "Accept-Encoding", "gzip");
    HttpResponse<byte[]> none = BundlePatchIT.get(androidManifest);
    String androidHash = androidManifest.path("launchAsset").path("hash").asText();
    String iosHash = iosManifest.path("launchAsset").path("hash").asText();
    assertEncoded(zstd, "zstd", androidHash, "/usr/bin/zstd", "-d", "-c");
    assertEncoded(br, "br", iosHash, "/usr/bin/brotli", "-d", "-c");
    assertEncoded(gzip, "gzip", androidHash, "/usr/bin/gzip", "-d", "-c");
    for (HttpResponse<byte[]> r : List.of(zstd, br, gzip)) {
      assertThat(r.headers().firstValue("cache-control")).as("bytes made before the stored copies are not kept for a year").hasValue(INTERIM);
      assertThat(r.headers().firstValue("vary")).hasValue("accept-encoding, a-im");
    }
    assertThat(none.statusCode()).isEqualTo(200);
    assertThat(none.headers().firstValue("content-encoding")).as("a client that takes no encoding gets identity").isEmpty();
    assertThat(BundlePatchIT.hash(none.body())).isEqualTo(androidHash);
    assertThat(none.headers().firstValue("cache-control")).as("identity is final for a client that takes nothing else").hasValue(IMMUTABLE);

    HttpResponse<byte[]> stored = awaitImmutable(androidManifest, "Accept-Encoding", "zstd, br, gzip");
    assertEncoded(stored, "zstd", androidHash, "/usr/bin/zstd", "-d", "-c");
    assertThat(stored.headers().firstValue("vary")).hasValue("accept-encoding, a-im");
    assertThat(stored.body().length).as("the stored copy (zstd -19) is smaller than the first answer's (zstd -3)").isLessThan(zstd.body().length);

    // update 2: a device on update 1 asks for a patch (as iOS releases ask) before the patch job has run
    JsonNode two = publish(cli, Fixtures.update2());
    String ios2 = updateId(two, "ios");
    JsonNode iosManifest2 = awaitManifest(edgePort, "ios", ios1, ios2);
    String[] patchRequest = {"A-IM", "bsdiff", "Accept", "*/*", "Expo-Platform", "ios", "Expo-Current-Update-ID", ios1,
        "Expo-Requested-Update-ID", ios2, "Expo-Embedded-Update-ID", UUID.randomUUID().toString(), "Accept-Encoding", "br, gzip, deflate"};
    HttpResponse<byte[]> early = BundlePatchIT.get(iosManifest2, patchRequest);
    String iosHash2 = iosManifest2.path("launchAsset").path("hash").asText();
    assertEncoded(early, "br", iosHash2, "/usr/bin/brotli", "-d", "-c");
    assertThat(early.headers().firstValue("cache-control")).as("a full bundle sent before the patch job ran").hasValue(INTERIM);
    assertThat(early.headers().firstValue("vary"))
        .hasValue("accept-encoding, a-im, expo-current-update-id, expo-requested-update-id, if-none-match, if-match");
    awaitPatchesComputed(cp.port(), two.path("groupId").asText());
    HttpResponse<byte[]> patch = BundlePatchIT.awaitPatch(iosManifest2, patchRequest);
    assertThat(patch.headers().firstValue("cache-control")).hasValue("private, no-store");
    assertThat(BundlePatchIT.hash(BundlePatchIT.bspatch(BundlePatchIT.bundle(Fixtures.update1(), "ios"), patch.body()))).isEqualTo(iosHash2);
    HttpResponse<byte[]> full = BundlePatchIT.get(iosManifest2, "Accept-Encoding", "br, gzip, deflate");
    assertEncoded(full, "br", iosHash2, "/usr/bin/brotli", "-d", "-c");
    assertThat(full.headers().firstValue("cache-control")).hasValue(IMMUTABLE);
  }

  private static void assertEncoded(HttpResponse<byte[]> r, String encoding, String hash, String... decoder) throws Exception {
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-encoding")).as("the launch asset's content-encoding").hasValue(encoding);
    assertThat(r.headers().firstValue("content-length")).hasValue(Integer.toString(r.body().length));
    assertThat(BundlePatchIT.hash(BundlePatchIT.tool(r.body(), decoder))).as("%s decoded by %s", encoding, decoder[0]).isEqualTo(hash);
  }

  private static JsonNode publish(CliRunner cli, Path dist) {
    return cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", dist.toString(), "--no-progress");
  }

  private static String updateId(JsonNode group, String platform) {
    for (JsonNode p : group.path("platforms")) {
      if (p.path("platform").asText().equals(platform)) {
        return p.path("updateId").asText();
      }
    }
    throw new AssertionError("no " + platform + " update in " + group);
  }

  /** The manifest of {@code wanted} once the edge serves it to a device on {@code current}. */
  private static JsonNode awaitManifest(int edgePort, String platform, String current, String wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      HttpResponse<byte[]> r = BundlePatchIT.HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edgePort + "/apps/" + APP + "/manifest"))
              .header("accept", "application/json").header("expo-platform", platform).header("expo-protocol-version", "1")
              .header("expo-runtime-version", "1.0.0").header("expo-channel-name", "main").header("expo-current-update-id", current)
              .header("eas-client-id", UUID.randomUUID().toString()).GET().build(),
          HttpResponse.BodyHandlers.ofByteArray());
      JsonNode m = r.statusCode() == 200 ? BundlePatchIT.JSON.readTree(r.body()) : null;
      if (m != null && wanted.equals(m.path("id").asText())) {
        return m;
      }
      assertThat(System.nanoTime()).as("the edge serves update %s within 30 s of its publish", wanted).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** Waits for the group's post-publish job (encodings at the best levels, then patches) to be recorded. */
  private static void awaitPatchesComputed(int controlPort, String group) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (true) {
      HttpResponse<String> r = BundlePatchIT.HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + controlPort + "/v1/apps/" + APP + "/updates/" + group + "/patches"))
              .header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      if (BundlePatchIT.JSON.readTree(r.body()).path("computed").asBoolean()) {
        return;
      }
      assertThat(System.nanoTime()).as("the patches of group %s within 180 s", group).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /** The launch asset once the stored copies exist (immutable); they are made at the best levels after the publish. */
  private static HttpResponse<byte[]> awaitImmutable(JsonNode m, String... headers) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    HttpResponse<byte[]> r = BundlePatchIT.get(m, headers);
    while (!r.headers().firstValue("cache-control").orElse("").contains("immutable") && System.nanoTime() < deadline) {
      Thread.sleep(200);
      r = BundlePatchIT.get(m, headers);
    }
    assertThat(r.headers().firstValue("cache-control")).as("the stored copies within 180 s").hasValue(IMMUTABLE);
    return r;
  }
}
