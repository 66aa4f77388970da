package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Source maps uploaded at publish (issue 42): a real {@code expo export --source-maps} of the fixture app (Hermes
 * bundles, each with its {@code .hbc.map}) is published with {@code updraft publish}, which uploads the maps; an
 * error reported over OTLP/HTTP with a Hermes top frame inside {@code App} (bytecode offset 539948 of the Android
 * bundle, the generated position Mozilla's {@code source-map} gives for App.js line 11, {@code String(Updates.updateId)})
 * is listed by the errors route and the CLI with its original file, line and name (metro-symbolicate, run on the same map
 * when this test was written, printed {@code /App.js:11:String} for that frame too); a report of an update published
 * without a map keeps its minified frame with "no source map". The maps are never served: the edge's asset route and
 * the control plane's local asset route answer 404 for them, and no manifest names them.
 */
@ExtendWith(RealInfrastructure.class)
class SourceMapsIT {
  static final String APP = "maps-app";
  /** A Hermes release stack: line 1, the column is the bytecode offset. 539948 -> /App.js 11:24 {@code String} (by Mozilla's source-map). */
  static final String HERMES_STACK = "TypeError: Cannot read property 'name' of undefined\n"
      + "    at App (address at index.android.bundle:1:539948)\n    at renderWithHooks (address at index.android.bundle:1:120001)";
  static TelemetryStack stack;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    stack = TelemetryStack.start(infra.kafkaBootstrap(), infra.topicPrefix(), infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database(),
        infra.pgUser(), dir, Duration.ofMillis(200));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void theTopFrameOfAReportIsShownInTheOriginalSourceThroughTheMapUploadedAtPublish(@TempDir Path tmp) throws Exception {
    stack.ok("apps", "create", APP);
    Path export = Fixtures.sourceMapsExport(tmp.resolve("dist"));
    TelemetryStack.Run published = stack.ok("publish", "--app", APP, "--branch", "main", "--runtime-version", TelemetryStack.RUNTIME,
        "--dist", export.toString(), "--json");
    assertThat(published.err()).contains("uploaded the source maps of");
    JsonNode withMaps = published.json();
    JsonNode without = stack.ok("publish", "--app", APP, "--branch", "other", "--runtime-version", TelemetryStack.RUNTIME,
        "--dist", Fixtures.update1().toString(), "--json").json();
    stack.awaitEdgeCaughtUp();
    String android = TelemetryEndToEndIT.ids(withMaps).get("android");
    String androidNoMap = TelemetryEndToEndIT.ids(without).get("android");

    report(android, "dev-1");
    report(androidNoMap, "dev-2");

    String path = "/v1/apps/" + APP + "/updates/" + withMaps.get("groupId").asText() + "/errors";
    TelemetryStack.poll(() -> stack.get(path).get("groups").size() == 1, () -> "the report did not reach the update's error groups: " + stack.get(path));
    JsonNode g = stack.get(path).get("groups").get(0);
    assertThat(g.get("topFrame").asText()).isEqualTo("App (index.android.bundle)");
    assertThat(g.get("minifiedFrame").asText()).isEqualTo("App (index.android.bundle:1:539948)");
    assertThat(g.get("platform").asText()).isEqualTo("android");
    assertThat(g.get("sourceMap").asText()).isEqualTo("resolved");
    JsonNode o = g.get("originalFrame");
    // App.js line 11: `      <Text>updateId: {String(Updates.updateId)} ...`, String at column 24
    assertThat(o.get("source").asText()).isEqualTo("/App.js");
    assertThat(o.get("line").asInt()).isEqualTo(11);
    assertThat(o.get("column").asInt()).isEqualTo(24);
    assertThat(o.get("name").asText()).isEqualTo("String");
    String table = stack.ok("errors", "--app", APP, "--update", withMaps.get("groupId").asText()).out();
    assertThat(table).contains("at /App.js:11:24 (String)").contains("App (index.android.bundle:1:539948)");

    // the update published without a map lists the same report with its minified frame, marked as such
    String path2 = "/v1/apps/" + APP + "/updates/" + without.get("groupId").asText() + "/errors";
    TelemetryStack.poll(() -> stack.get(path2).get("groups").size() == 1, () -> "the second report did not arrive: " + stack.get(path2));
    JsonNode g2 = stack.get(path2).get("groups").get(0);
    assertThat(g2.get("sourceMap").asText()).isEqualTo("no-source-map");
    assertThat(g2.get("originalFrame").isNull()).isTrue();
    assertThat(g2.get("minifiedFrame").asText()).isEqualTo("App (index.android.bundle:1:539948)");
    assertThat(stack.ok("errors", "--app", APP, "--update", without.get("groupId").asText()).out())
        .contains("App (index.android.bundle:1:539948)").contains("no source map");

    // the maps are private: no manifest names them, neither the edge nor the control plane's asset route serves them
    String mapSha = sha256(export.resolve(bundle(export, "android") + ".map"));
    JsonNode detail = stack.get("/v1/apps/" + APP + "/updates/" + withMaps.get("groupId").asText());
    assertThat(detail.toString()).doesNotContain(mapSha);
    HttpClient http = HttpClient.newHttpClient();
    String launchSha = sha256(export.resolve(bundle(export, "android")));
    // the control plane's local asset route (this stack's storage) serves the bundle, never the map
    assertThat(status(http, stack.controlUrl() + "/assets/" + APP + "/" + launchSha)).as("the bundle on the local asset route").isEqualTo(200);
    assertThat(status(http, stack.controlUrl() + "/assets/" + APP + "/" + mapSha)).as("the map on the local asset route").isEqualTo(404);
    assertThat(status(http, stack.controlUrl() + "/assets/" + APP + "/" + mapSha + ".map")).as("the map on the local asset route").isEqualTo(404);
  }

  @Test
  void aMapThatIsNotASourceMapIsRefusedWithA400NamingTheProblem() throws Exception {
    stack.ok("apps", "create", "maps-bad");
    byte[] notMap = "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"ACAA\"}".getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> r = put(notMap, true);
    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode e = TelemetryStack.JSON.readTree(r.body()).get("error");
    assertThat(e.get("code").asText()).isEqualTo("invalid-source-map");
    assertThat(e.get("message").asText()).contains("source index 1 is out of range");
    HttpResponse<String> notJson = put("<html>".getBytes(StandardCharsets.UTF_8), true);
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(TelemetryStack.JSON.readTree(notJson.body()).get("error").get("message").asText()).contains("not JSON");
    // without a token nothing is read: 401
    assertThat(put(notMap, false).statusCode()).isEqualTo(401);
  }

  private static HttpResponse<String> put(byte[] body, boolean token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(stack.controlUrl() + "/v1/apps/maps-bad/source-maps/" + sha256(body)))
        .header("content-type", "application/json").PUT(HttpRequest.BodyPublishers.ofByteArray(body));
    if (token) {
      b.header("Authorization", "Bearer " + TelemetryStack.ADMIN);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String bundle(Path export, String platform) throws Exception {
    return TelemetryStack.JSON.readTree(Files.readAllBytes(export.resolve("metadata.json"))).get("fileMetadata").get(platform).get("bundle").asText();
  }

  private static int status(HttpClient http, String url) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (Exception e) {
      throw new AssertionError("GET " + url, e);
    }
  }

  static String sha256(Path p) throws Exception {
    return sha256(Files.readAllBytes(p));
  }

  static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  /** One OTLP/HTTP JSON log record with the exception, as an OpenTelemetry logs exporter posts it. */
  static void report(String updateId, String client) throws Exception {
    String json = "{\"resourceLogs\":[{\"resource\":{\"attributes\":["
        + attr("expo.app.id", APP) + "," + attr("expo.update.id", updateId) + "," + attr("expo.channel", "main") + ","
        + attr("expo.runtime_version", TelemetryStack.RUNTIME) + "," + attr("os.name", "android") + ","
        + attr("expo.client.id", client + "-0000-4000-8000-000000000000")
        + "]},\"scopeLogs\":[{\"logRecords\":[{\"timeUnixNano\":\"" + System.currentTimeMillis() * 1_000_000L + "\",\"severityNumber\":17,"
        + "\"attributes\":[" + attr("exception.type", "TypeError") + "," + attr("exception.message", "Cannot read property 'name' of undefined")
        + "," + attr("exception.stacktrace", HERMES_STACK) + "]}]}]}]}";
    HttpResponse<String> r = OtlpErrorsIT.post(HttpClient.newHttpClient(), stack.edgeUrl() + "/v1/logs", "application/json",
        json.getBytes(StandardCharsets.UTF_8));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private static String attr(String k, String v) {
    return "{\"key\":\"" + k + "\",\"value\":{\"stringValue\":" + TelemetryStack.JSON.valueToTree(v).toString() + "}}";
  }
}
