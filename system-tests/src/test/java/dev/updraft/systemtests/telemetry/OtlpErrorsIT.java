package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors from the app (issue 42), reported with the real OpenTelemetry JS SDK: a Node script
 * ({@code otel/report-errors.cjs}) exports log records (OTLP/HTTP JSON and protobuf) and a span's exception event
 * (JSON) from devices tagged as an app on an update, to a live edge; through Kafka and the ingester they land in
 * PostgreSQL, and the control plane's {@code GET /v1/apps/{app}/updates/{groupId}/errors} shows them grouped by type
 * and top frame, with exact device counts, and which groups are new in the update. The packages come from
 * {@code .ci/install-otel-js.sh} (see {@link OtelJs}): without them this test fails,
 * it never skips.
 */
@ExtendWith(RealInfrastructure.class)
class OtlpErrorsIT {
  static final String APP = "otlp-app";
  static final String LOGIN_STACK = "TypeError: undefined is not an object (evaluating 'user.name')\n"
      + "    at LoginScreen (http://127.0.0.1:8081/index.bundle?platform=ios&dev=false:1:%d)\n    at renderWithHooks (index.bundle:1:999)";
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
  void errorsTheJsSdkExportsAppearInTheUpdatesErrorGroupsWithExactDeviceCounts() throws Exception {
    stack.ok("apps", "create", APP);
    JsonNode base = publish(Fixtures.update1());
    JsonNode next = publish(Fixtures.update2());
    stack.awaitEdgeCaughtUp();
    String baseIos = TelemetryEndToEndIT.ids(base).get("ios");
    String nextIos = TelemetryEndToEndIT.ids(next).get("ios");
    String nextAndroid = TelemetryEndToEndIT.ids(next).get("android");

    // the previous update already had the RangeError (one device); the TypeError is new in the next one
    report("logs-json", devices(baseIos, "ios", "base-", 1), "RangeError", "Maximum call stack size exceeded",
        "RangeError: Maximum call stack size exceeded\n    at deepClone (index.bundle:1:500)");
    // 3 devices by JSON logs, 2 of the same by protobuf logs (same devices: counted once), 1 more by a span event on Android
    report("logs-json", devices(nextIos, "ios", "dev-", 3), "TypeError", "undefined is not an object", LOGIN_STACK.formatted(1200));
    report("logs-proto", devices(nextIos, "ios", "dev-", 2), "TypeError", "undefined is not an object", LOGIN_STACK.formatted(1200));
    report("traces-json", devices(nextAndroid, "android", "droid-", 1), "TypeError", "undefined is not an object", LOGIN_STACK.formatted(7777));
    report("logs-proto", devices(nextIos, "ios", "other-", 2), "RangeError", "Maximum call stack size exceeded",
        "RangeError: Maximum call stack size exceeded\n    at deepClone (index.bundle:1:640)");

    String path = "/v1/apps/" + APP + "/updates/" + next.get("groupId").asText() + "/errors";
    TelemetryStack.poll(() -> occurrences(stack.get(path)) == 8, () -> "the 8 reports did not reach the update's error groups: " + stack.get(path));
    JsonNode errors = stack.get(path);
    assertThat(errors.get("previousGroupId").asText()).isEqualTo(base.get("groupId").asText());
    assertThat(errors.get("devices").asLong()).as("distinct devices that reported errors").isEqualTo(6);
    JsonNode groups = errors.get("groups");
    assertThat(groups).hasSize(2);
    JsonNode type = groups.get(0);
    assertThat(type.get("errorType").asText()).isEqualTo("TypeError");
    assertThat(type.get("topFrame").asText()).isEqualTo("LoginScreen (index.bundle)");
    assertThat(type.get("devices").asLong()).isEqualTo(4);
    assertThat(type.get("occurrences").asLong()).isEqualTo(6);
    assertThat(type.get("newInUpdate").asBoolean()).isTrue();
    assertThat(type.get("sampleMessage").asText()).isEqualTo("undefined is not an object");
    JsonNode range = groups.get(1);
    assertThat(range.get("errorType").asText()).isEqualTo("RangeError");
    assertThat(range.get("topFrame").asText()).isEqualTo("deepClone (index.bundle)");
    assertThat(range.get("devices").asLong()).isEqualTo(2);
    assertThat(range.get("newInUpdate").asBoolean()).as("the previous update had it").isFalse();
    // the CLI prints the same groups
    String table = stack.ok("errors", "--app", APP, "--update", next.get("groupId").asText()).out();
    assertThat(table).contains("6 devices reported errors").contains("LoginScreen (index.bundle)").contains("deepClone (index.bundle)");
  }

  @Test
  void malformedOrOversizedRequestsAreRefusedWithAJsonErrorNamingTheProblem() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String edge = stack.edgeUrl();
    HttpResponse<String> notJson = post(http, edge + "/v1/logs", "application/json", "{\"resourceLogs\":[".getBytes(StandardCharsets.UTF_8));
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(code(notJson)).isEqualTo("invalid-otlp");
    HttpResponse<String> wrongType = post(http, edge + "/v1/traces", "text/plain", "x".getBytes(StandardCharsets.UTF_8));
    assertThat(wrongType.statusCode()).isEqualTo(415);
    assertThat(code(wrongType)).isEqualTo("unsupported-content-type");
    HttpResponse<String> big = post(http, edge + "/v1/logs", "application/json", new byte[600 * 1024]);
    assertThat(big.statusCode()).isEqualTo(413);
    assertThat(code(big)).isEqualTo("body-too-large");
    HttpResponse<String> unknown = post(http, edge + "/apps/no-such-app/v1/logs", "application/json", "{}".getBytes(StandardCharsets.UTF_8));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(code(unknown)).isEqualTo("app-not-found");
    HttpResponse<String> badProto = post(http, edge + "/v1/logs", "application/x-protobuf", new byte[] {0x0a, 0x7f, 0x01});
    assertThat(badProto.statusCode()).isEqualTo(400);
    assertThat(code(badProto)).isEqualTo("invalid-otlp");
    assertThat(TelemetryStack.JSON.readTree(badProto.body()).get("error").get("message").asText()).contains("runs past");
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(edge + "/v1/logs")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    // the control plane's read route: an unknown app or group is a 404 naming it
    stack.ok("apps", "create", "otlp-errs");
    assertThat(stack.api("/v1/apps/no-such-app/updates/0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00/errors").errorCode()).isEqualTo("app-not-found");
    assertThat(stack.api("/v1/apps/otlp-errs/updates/0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00/errors").errorCode()).isEqualTo("update-not-found");
  }

  /**
   * The route in the fuzz: 300 mutated OTLP bodies (JSON and protobuf, logs and traces; bytes flipped, cut, spliced, random;
   * a fresh seed each run, printed) each get 200 or a 4xx with a JSON error, never a 5xx; afterwards the edge still serves
   * manifests and the ingester has skipped no record.
   */
  @Test
  void mutatedBodiesGet200OrA4xxJsonErrorAndTheEdgeKeepsServing() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long seed = new java.util.SplittableRandom().nextLong();
    System.out.println("otlp fuzz seed " + seed);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    String json = "{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"expo.app.id\",\"value\":{\"stringValue\":\"" + FUZZ_APP
        + "\"}}]},\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":17,\"attributes\":[{\"key\":\"exception.type\","
        + "\"value\":{\"stringValue\":\"E\"}}]}]}]}]}";
    byte[] proto = java.util.HexFormat.of().parseHex("0a480a170a150a0e6578706f2e7570646174652e696412030a0175122d122b09c01448e050caec18"
        + "10152a030a016232190a0e657863657074696f6e2e7479706512070a055479706545");
    stack.ok("apps", "create", FUZZ_APP);
    stack.awaitEdgeCaughtUp();
    java.util.Map<Integer, Integer> byStatus = new java.util.TreeMap<>();
    for (int i = 0; i < 300; i++) {
      boolean isJson = rnd.nextBoolean();
      byte[] body = mutate(isJson ? json.getBytes(StandardCharsets.UTF_8) : proto, rnd);
      String path = "/apps/" + FUZZ_APP + (rnd.nextBoolean() ? "/v1/logs" : "/v1/traces");
      HttpResponse<String> r = post(http, stack.edgeUrl() + path, isJson ? "application/json" : "application/x-protobuf", body);
      byStatus.merge(r.statusCode(), 1, Integer::sum);
      assertThat(r.statusCode()).as("seed %d, input %d: %s", seed, i, r.body()).isIn(200, 400);
      if (r.statusCode() == 400) {
        assertThat(code(r)).isEqualTo("invalid-otlp");
      }
    }
    System.out.println("otlp fuzz: answers by status " + byStatus);
    assertThat(stack.device(FUZZ_APP, "fuzz-0000-4000-8000-000000000000", "ios", "main", TelemetryEndToEndIT.EMB_IOS, TelemetryEndToEndIT.EMB_IOS, List.of()).status())
        .as("a manifest request after the fuzz").isIn(200, 204);
    assertThat(stack.ingesterMetric("updraft_ingest_error_reports_skipped_total")).as("records of updraft.errors that did not decode").isZero();
  }

  static final String FUZZ_APP = "otlp-fuzz";

  static byte[] mutate(byte[] in, java.util.SplittableRandom rnd) {
    byte[] b = in.clone();
    switch (rnd.nextInt(5)) {
      case 0 -> {
        for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
          b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
        }
      }
      case 1 -> b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length));
      case 2 -> {
        int at = rnd.nextInt(b.length);
        byte[] out = new byte[b.length * 2 - at];
        System.arraycopy(b, 0, out, 0, b.length);
        System.arraycopy(b, at, out, b.length, b.length - at);
        b = out;
      }
      case 3 -> {
        b = new byte[rnd.nextInt(64)];
        for (int k = 0; k < b.length; k++) {
          b[k] = (byte) rnd.nextInt(256);
        }
      }
      default -> {
        int at = rnd.nextInt(b.length);
        b[at] = (byte) (b[at] ^ (1 << rnd.nextInt(8)));
      }
    }
    return b;
  }

  static JsonNode publish(Path export) {
    return stack.ok("publish", "--app", APP, "--branch", "main", "--runtime-version", TelemetryStack.RUNTIME, "--dist", export.toString(), "--json")
        .json();
  }

  static HttpResponse<String> post(HttpClient http, String url, String type, byte[] body) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).header("content-type", type).timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static String code(HttpResponse<String> r) throws IOException {
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    return TelemetryStack.JSON.readTree(r.body()).get("error").get("code").asText();
  }

  static long occurrences(JsonNode errors) {
    long n = 0;
    for (JsonNode g : errors.get("groups")) {
      n += g.get("occurrences").asLong();
    }
    return n;
  }

  static List<Map<String, String>> devices(String updateId, String platform, String prefix, int n) {
    List<Map<String, String>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, String> d = new HashMap<>();
      d.put("appId", APP);
      d.put("updateId", updateId);
      d.put("channel", "main");
      d.put("runtimeVersion", TelemetryStack.RUNTIME);
      d.put("platform", platform);
      d.put("clientId", prefix + i + "-0000-4000-8000-000000000000");
      out.add(d);
    }
    return out;
  }

  static void report(String via, List<Map<String, String>> devices, String type, String message, String stack) throws Exception {
    OtelJs.report(OtlpErrorsIT.stack.edgeUrl(), via, devices, type, message, stack);
  }
}
