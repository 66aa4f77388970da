package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.events.Topics;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every refusal the issue lists, with the status, code and message a publisher sees, and the event log
 * left exactly as it was (a rejected command appends nothing).
 */
@ExtendWith(RealInfrastructure.class)
class ApiErrorsIT {
  static Vertx vertx;
  static ControlPlane cp;
  static Http admin;
  static KafkaConsumer<byte[], byte[]> offsets;
  static List<TopicPartition> partitions;
  static String readToken;
  static String publishToken;
  static String otherAppToken;
  static String groupId;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    cp = TestSupport.start(vertx, TestSupport.config(infra, dir, "max-asset-bytes", "2048", "max-request-bytes", "65536"));
    admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    offsets = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    partitions = new ArrayList<>();
    for (PartitionInfo i : offsets.partitionsFor(Topics.events(infra.topicPrefix()), Duration.ofSeconds(10))) {
      partitions.add(new TopicPartition(i.topic(), i.partition()));
    }
    assertThat(admin.post("/v1/apps", Map.of("appId", "errors")).status()).isEqualTo(201);
    assertThat(admin.post("/v1/apps", Map.of("appId", "errors-other")).status()).isEqualTo(201);
    readToken = admin.post("/v1/apps/errors/tokens", Map.of("role", "read")).json().get("token").asText();
    publishToken = admin.post("/v1/apps/errors/tokens", Map.of("role", "publish")).json().get("token").asText();
    otherAppToken = admin.post("/v1/apps/errors-other/tokens", Map.of("role", "admin")).json().get("token").asText();
    // one small publish of update-1's iOS bundle... too big for the 2 KiB limit, so publish the assets-only layout
    Path export = smallExport(dir.resolve("small"));
    ExportFixture.upload(admin, "errors", export);
    Http.Resp p1 = admin.post("/v1/apps/errors/updates", ExportFixture.publishBody(export, "main", "1"));
    assertThat(p1.status()).as(p1.toString()).isEqualTo(201);
    groupId = p1.json().get("groupId").asText();
  }

  /** An export in the pre-SDK-50 layout ({@code bundles/}) with tiny files, under the test's asset limit. */
  static Path smallExport(Path dir) throws Exception {
    Files.createDirectories(dir.resolve("bundles"));
    Files.createDirectories(dir.resolve("assets"));
    Files.writeString(dir.resolve("bundles/ios-0123.js"), "console.log('ios');");
    Files.writeString(dir.resolve("bundles/android-4567.js"), "console.log('android');");
    byte[] png = Files.readAllBytes(Fixtures.update1().resolve("assets/d9f444efbdfbe7931aa93beada07318a"));
    Files.write(dir.resolve("assets/d9f444efbdfbe7931aa93beada07318a"), png);
    Files.writeString(
        dir.resolve("metadata.json"),
        "{\"version\":0,\"bundler\":\"metro\",\"fileMetadata\":{"
            + "\"ios\":{\"bundle\":\"bundles/ios-0123.js\",\"assets\":[{\"path\":\"assets/d9f444efbdfbe7931aa93beada07318a\",\"ext\":\"png\"}]},"
            + "\"android\":{\"bundle\":\"bundles/android-4567.js\",\"assets\":[{\"path\":\"assets/d9f444efbdfbe7931aa93beada07318a\",\"ext\":\"png\"}]}}}");
    return dir;
  }

  @AfterAll
  static void stop() {
    offsets.close();
    TestSupport.await(cp.close());
    TestSupport.await(vertx.close());
  }

  /** Sends a bad request and checks the refusal and that the log did not move. */
  private static void refused(Supplier<Http.Resp> call, int status, String code, String messagePart) {
    Map<TopicPartition, Long> before = offsets.endOffsets(partitions);
    Http.Resp r = call.get();
    assertThat(r.status()).as(r.toString()).isEqualTo(status);
    assertThat(r.header("content-type")).startsWith("application/json");
    assertThat(r.errorCode()).as(r.toString()).isEqualTo(code);
    assertThat(r.errorMessage()).as(r.toString()).contains(messagePart);
    assertThat(offsets.endOffsets(partitions)).isEqualTo(before);
  }

  private static ObjectNode publishBody() throws Exception {
    return ExportFixture.publishBody(smallExport(Files.createTempDirectory("small")), "main", "1");
  }

  @Test
  void refusesRequestsWithoutAValidToken() {
    refused(() -> admin.as(null).get("/v1/apps/errors"), 401, "unauthorized", "Authorization: Bearer");
    refused(() -> admin.as("updraft_not-a-real-token").post("/v1/apps/errors/updates", Map.of()), 401, "unauthorized", "invalid or revoked");
    Http.Resp issued = admin.post("/v1/apps/errors/tokens", Map.of("role", "publish", "label", "to revoke"));
    String t = issued.json().get("token").asText();
    String id = issued.json().get("tokenId").asText();
    assertThat(admin.as(t).get("/v1/apps/errors").status()).isEqualTo(200);
    assertThat(admin.delete("/v1/apps/errors/tokens/" + id).status()).isEqualTo(200);
    refused(() -> admin.as(t).get("/v1/apps/errors"), 401, "unauthorized", "invalid or revoked");
    refused(() -> admin.delete("/v1/apps/errors/tokens/tok_000000000000"), 404, "token-not-found", "tok_000000000000");
  }

  @Test
  void refusesTokensOfAnotherAppOrWithTooLowARole() throws Exception {
    refused(() -> admin.as(otherAppToken).get("/v1/apps/errors/updates"), 403, "forbidden", "belongs to app errors-other");
    refused(() -> admin.as(readToken).post("/v1/apps/errors/updates", Map.of()), 403, "forbidden", "role read");
    refused(() -> admin.as(publishToken).post("/v1/apps/errors/tokens", Map.of("role", "admin")), 403, "forbidden", "needs role admin");
    refused(() -> admin.as(otherAppToken).post("/v1/apps", Map.of("appId", "sneaky")), 403, "forbidden", "admin token");
    // an app token sees its own app only
    assertThat(admin.as(readToken).get("/v1/apps").json().get("items")).hasSize(1);
    assertThat(admin.as(readToken).get("/v1/apps/errors/updates").status()).isEqualTo(200);
  }

  @Test
  void answersNotFoundForUnknownAppsGroupsCertificatesAndRoutes() {
    refused(() -> admin.get("/v1/apps/nope"), 404, "app-not-found", "no app nope");
    refused(() -> admin.post("/v1/apps/nope/updates", Map.of()), 404, "app-not-found", "no app nope");
    refused(() -> admin.get("/v1/apps/errors/updates/00000000-0000-4000-8000-000000000000"), 404, "update-not-found", "00000000-0000-4000-8000-000000000000");
    refused(() -> admin.get("/v1/apps/errors/certificate"), 404, "certificate-not-found", "updraft keys register");
    refused(() -> admin.get("/v1/nothing-here"), 404, "not-found", "/v1/nothing-here");
    refused(
        () -> admin.post("/v1/apps/errors/rollbacks", Map.of("branch", "main", "runtimeVersion", "1", "toGroupId", "00000000-0000-4000-8000-000000000000")),
        404, "update-not-found", "no update group");
  }

  @Test
  void answersConflictForDuplicatesAndRolloutRules() throws Exception {
    refused(() -> admin.post("/v1/apps", Map.of("appId", "errors")), 409, "app-exists", "already exists");
    refused(() -> admin.post("/v1/apps/errors/updates/" + groupId + "/rollout/finish", Map.of()), 409, "not-a-rollout", "not published as a rollout");
    ObjectNode b = publishBody();
    b.put("branch", "canary");
    b.put("rolloutPercentage", 10);
    Http.Resp r = admin.post("/v1/apps/errors/updates", b);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    ObjectNode again = publishBody();
    again.put("branch", "canary");
    refused(() -> admin.post("/v1/apps/errors/updates", again), 409, "rollout-in-progress", "finish or revert it first");
    refused(
        () -> admin.post("/v1/apps/errors/rollbacks", Map.of("branch", "canary", "runtimeVersion", "1", "embedded", true)),
        409, "rollout-in-progress", r.json().get("groupId").asText());
    assertThat(admin.post("/v1/apps/errors/updates/" + r.json().get("groupId").asText() + "/rollout/finish", Map.of()).status()).isEqualTo(200);
    refused(
        () -> admin.post("/v1/apps/errors/updates/" + r.json().get("groupId").asText() + "/rollout/revert", Map.of()),
        409, "rollout-not-active", "already finished");
  }

  @Test
  void refusesBodiesAboveTheLimits() {
    byte[] big = new byte[3000];
    refused(
        () -> admin.putBytes("/v1/apps/errors/assets/" + ExportFixture.sha256(big), big, "application/octet-stream"),
        413, "too-large", "limit of 2048 bytes");
    String huge = "{\"branch\":\"" + "x".repeat(70_000) + "\"}";
    refused(() -> admin.post("/v1/apps/errors/updates", huge), 413, "too-large", "65536");
    // the token is checked before a body is read: a stranger cannot make the server buffer anything
    refused(() -> admin.as(null).post("/v1/apps/errors/updates", huge), 401, "unauthorized", "Authorization: Bearer");
    refused(() -> admin.as(null).post("/v1/apps", huge), 401, "unauthorized", "Authorization: Bearer");
  }

  @Test
  void refusesBadPublishInputNamingTheProblem() throws Exception {
    ObjectNode malformed = publishBody();
    malformed.set("metadata", Http.JSON.readTree("{\"version\":0}"));
    refused(() -> admin.post("/v1/apps/errors/updates", malformed), 400, "malformed-metadata", "no fileMetadata");

    ObjectNode escaping = publishBody();
    ((ObjectNode) escaping.get("metadata").get("fileMetadata").get("ios")).put("bundle", "../../etc/passwd");
    refused(() -> admin.post("/v1/apps/errors/updates", escaping), 400, "bad-path", "escapes the export folder");

    ObjectNode missing = publishBody();
    ((ObjectNode) missing.get("files")).remove("bundles/android-4567.js");
    refused(() -> admin.post("/v1/apps/errors/updates", missing), 400, "missing-file", "bundles/android-4567.js");

    ObjectNode notUploaded = publishBody();
    ((ObjectNode) notUploaded.get("files").get("bundles/ios-0123.js")).put("sha256", "ab".repeat(32));
    refused(() -> admin.post("/v1/apps/errors/updates", notUploaded), 400, "asset-not-uploaded", "was never uploaded");

    ObjectNode wrongSize = publishBody();
    ((ObjectNode) wrongSize.get("files").get("bundles/ios-0123.js")).put("size", 5);
    refused(() -> admin.post("/v1/apps/errors/updates", wrongSize), 400, "size-mismatch", "bundles/ios-0123.js");

    ObjectNode web = publishBody();
    web.putArray("platforms").add("web");
    refused(() -> admin.post("/v1/apps/errors/updates", web), 400, "unknown-platform", "'web'");

    ObjectNode empty = publishBody();
    empty.put("runtimeVersion", "");
    refused(() -> admin.post("/v1/apps/errors/updates", empty), 400, "empty-runtime-version", "runtime version");

    ObjectNode pct = publishBody();
    pct.put("rolloutPercentage", 150);
    refused(() -> admin.post("/v1/apps/errors/updates", pct), 400, "invalid-percentage", "between 0 and 100");

    refused(() -> admin.post("/v1/apps/errors/updates", "{not json"), 400, "bad-json", "not valid JSON");
    refused(() -> admin.post("/v1/apps", Map.of("appId", "Bad_Id")), 400, "invalid-app-id", "lower-case slug");
    refused(() -> admin.post("/v1/apps/errors/tokens", Map.of("role", "owner")), 400, "invalid-role", "read, publish or admin");
  }

  @Test
  void refusesABuildRegisteredWithAnExpoUpdatesVersionThatIsNoRelease() {
    String sha = ExportFixture.sha256("console.log('ios');".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    for (Object bad : List.of("latest", "57", "v57.0.24", "^57.0.0", "57.0.x", 57)) {
      Map<String, Object> body = Map.of("platform", "ios", "runtimeVersion", "1", "embeddedUpdateId", "0e5b1d2c-3f4a-4b6c-8d7e-9f0a1b2c3d4e",
          "bundleSha256", sha, "expoUpdatesVersion", bad);
      refused(() -> admin.post("/v1/apps/errors/builds", body), 400, "invalid-expo-updates-version",
          bad instanceof String ? "got '" + bad + "'" : "got a JSON number");
    }
  }

  @Test
  void refusesAnUploadWhoseBytesDoNotHashToItsAddress() {
    byte[] bytes = "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    String wrong = ExportFixture.sha256("other".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    refused(() -> admin.putBytes("/v1/apps/errors/assets/" + wrong, bytes, "text/plain"), 400, "hash-mismatch", "hash to sha256=" + ExportFixture.sha256(bytes));
    refused(() -> admin.putBytes("/v1/apps/errors/assets/NOT-HEX", bytes, "text/plain"), 400, "invalid-sha256", "SHA-256");
  }

  @Test
  void refusesCertificatesDevicesWouldReject() throws Exception {
    KeyPair kp = TestCerts.rsa();
    String key = TestCerts.pem(kp.getPrivate());
    Instant now = Instant.now();
    Instant past = now.minus(Duration.ofDays(400));
    String expired = TestCerts.certificate(kp, past, now.minus(Duration.ofDays(1)), true, true);
    String noEku = TestCerts.certificate(kp, past, now.plus(Duration.ofDays(400)), true, false);
    String noDigitalSignature = TestCerts.certificate(kp, past, now.plus(Duration.ofDays(400)), false, true);
    String good = TestCerts.certificate(kp, past, now.plus(Duration.ofDays(400)), true, true);
    String otherKey = TestCerts.pem(TestCerts.rsa().getPrivate());
    refused(() -> admin.put("/v1/apps/errors/signing-key", Map.of("certificatePem", expired, "privateKeyPem", key)), 400, "certificate-expired", "expired");
    refused(() -> admin.put("/v1/apps/errors/signing-key", Map.of("certificatePem", noEku, "privateKeyPem", key)), 400, "certificate-missing-code-signing", "codeSigning");
    refused(() -> admin.put("/v1/apps/errors/signing-key", Map.of("certificatePem", noDigitalSignature, "privateKeyPem", key)), 400, "certificate-missing-digital-signature", "digitalSignature");
    refused(() -> admin.put("/v1/apps/errors/signing-key", Map.of("certificatePem", good, "privateKeyPem", otherKey)), 400, "key-mismatch", "does not belong to the certificate");
    refused(() -> admin.put("/v1/apps/errors/signing-key", Map.of("certificatePem", "garbage", "privateKeyPem", key)), 400, "invalid-certificate", "PEM");
    refused(() -> admin.post("/v1/apps", Map.of("appId", "errors-expired", "certificatePem", expired, "privateKeyPem", key)), 400, "certificate-expired", "expired");
    assertThat(admin.get("/v1/apps/errors-expired").status()).isEqualTo(404);
    // Expo's project-information extension: devices would then refuse every manifest without that project id
    String projectBound = TestCerts.certificateWithProjectInformation(kp, past, now.plus(Duration.ofDays(400)),
        "2b5a2a9c-0b1e-4b8e-9a55-6f3e1f0c7d11,@someone/some-app");
    String oid = "1.2.840.113556.1.8000.2554.43437.254.128.102.157.7894389.20439.2.1";
    refused(() -> admin.put("/v1/apps/errors/signing-key", Map.of("certificatePem", projectBound, "privateKeyPem", key)), 400,
        "certificate-has-expo-project-information", oid);
    refused(() -> admin.post("/v1/apps", Map.of("appId", "errors-project", "certificatePem", projectBound, "privateKeyPem", key)), 400,
        "certificate-has-expo-project-information", "\"2b5a2a9c-0b1e-4b8e-9a55-6f3e1f0c7d11,@someone/some-app\"");
    assertThat(admin.get("/v1/apps/errors-project").status()).isEqualTo(404);
  }

  /** Counts of the hostile-input tests, printed at the end of each. */
  private static int tried;

  private static void refused4xx(Supplier<Http.Resp> call, String codePart, String messagePart) {
    Map<TopicPartition, Long> before = offsets.endOffsets(partitions);
    Http.Resp r = call.get();
    tried++;
    assertThat(r.status()).as(r.toString()).isBetween(400, 499);
    assertThat(r.header("content-type")).as(r.toString()).startsWith("application/json");
    assertThat(r.errorCode()).as(r.toString()).contains(codePart);
    assertThat(r.errorMessage()).as(r.toString()).contains(messagePart);
    assertThat(offsets.endOffsets(partitions)).as("no event appended for " + r).isEqualTo(before);
  }

  @Test
  void refusesMetadataAndFilePathsThatEscapeTheExportFolder() throws Exception {
    tried = 0;
    List<String> escaping =
        List.of("../x", "../../etc/passwd", "/etc/passwd", "..\\x", "assets\\..\\..\\x", "assets/../../x", "C:\\Windows\\win.ini",
            "c:/x", "assets/x\u0000.png", "./../x", "assets/./../../x", "", "/", "./", "x".repeat(1100));
    for (String bad : escaping) {
      ObjectNode bundle = publishBody();
      ((ObjectNode) bundle.get("metadata").get("fileMetadata").get("ios")).put("bundle", bad);
      refused4xx(() -> admin.post("/v1/apps/errors/updates", bundle), bad.isEmpty() ? "malformed-metadata" : "bad-path", bad.isEmpty() ? "bundle" : "");

      ObjectNode asset = publishBody();
      ((ObjectNode) asset.get("metadata").get("fileMetadata").get("android").get("assets").get(0)).put("path", bad);
      refused4xx(() -> admin.post("/v1/apps/errors/updates", asset), "bad-path", "");

      ObjectNode fileKey = publishBody();
      ((ObjectNode) fileKey.get("files")).set(bad, fileKey.get("files").get("bundles/ios-0123.js"));
      refused4xx(() -> admin.post("/v1/apps/errors/updates", fileKey), "bad-path", "");
    }
    // URL-encoded dots are not decoded: a file literally named %2e%2e is not in files, and the server never opens paths
    for (String encoded : List.of("%2e%2e/x", "%2E%2E%2Fetc%2Fpasswd", "..%2fx", "%252e%252e%252fx")) {
      ObjectNode b = publishBody();
      ((ObjectNode) b.get("metadata").get("fileMetadata").get("ios")).put("bundle", encoded);
      refused4xx(() -> admin.post("/v1/apps/errors/updates", b), "missing-file", encoded);
    }
    System.out.println("escaping paths: " + tried + " publishes refused with a 4xx JSON error, no event appended");
  }

  @Test
  void refusesWrongJsonTypesAndMalformedJsonNamingTheField() throws Exception {
    tried = 0;
    String[][] wrongTypes = {
      {"branch", "5"}, {"branch", "[\"main\"]"}, {"branch", "null"}, {"runtimeVersion", "1"}, {"runtimeVersion", "{}"},
      {"metadata", "\"metadata.json\""}, {"metadata", "[]"}, {"files", "[]"}, {"files", "\"x\""}, {"platforms", "\"ios\""},
      {"platforms", "[1]"}, {"rolloutPercentage", "\"50\""}, {"rolloutPercentage", "50.5"}, {"rolloutPercentage", "true"},
      {"rolloutGuard", "\"on\""}, {"expoConfig", "[]"}, {"message", "{}"}, {"gitCommitHash", "7"}, {"idempotencyKey", "12"},
    };
    for (String[] wt : wrongTypes) {
      ObjectNode b = publishBody();
      b.set(wt[0], Http.JSON.readTree(wt[1]));
      refused4xx(() -> admin.post("/v1/apps/errors/updates", b), "", wt[0]);
    }
    String[][] nested = {
      {"sha256", "123"}, {"sha256", "\"" + "AB".repeat(32) + "\""}, {"sha256", "null"}, {"size", "\"19\""}, {"size", "-1"}, {"size", "1.5"},
    };
    for (String[] n : nested) {
      ObjectNode b = publishBody();
      ((ObjectNode) b.get("files").get("bundles/ios-0123.js")).set(n[0], Http.JSON.readTree(n[1]));
      refused4xx(() -> admin.post("/v1/apps/errors/updates", b), "invalid-field", "files[\"bundles/ios-0123.js\"]." + n[0]);
    }
    ObjectNode fm = publishBody();
    ((ObjectNode) fm.get("metadata").get("fileMetadata")).put("ios", "bundles/ios-0123.js");
    refused4xx(() -> admin.post("/v1/apps/errors/updates", fm), "malformed-metadata", "fileMetadata.ios");
    ObjectNode assets = publishBody();
    ((ObjectNode) assets.get("metadata").get("fileMetadata").get("ios")).put("assets", "none");
    refused4xx(() -> admin.post("/v1/apps/errors/updates", assets), "malformed-metadata", "assets must be an array");
    ObjectNode ext = publishBody();
    ((ObjectNode) ext.get("metadata").get("fileMetadata").get("ios").get("assets").get(0)).put("ext", "../png");
    refused4xx(() -> admin.post("/v1/apps/errors/updates", ext), "malformed-metadata", "ext");

    for (String malformed : List.of("{not json", "{\"branch\":\"main\"", "{\"branch\":\"main\"} trailing", "[]", "\"a string\"", "null", "42",
        "{\"branch\":\"main\",}", "{'branch':'main'}", "\u0000", "\uFEFF{}x")) {
      refused4xx(() -> admin.post("/v1/apps/errors/updates", malformed), "bad-json", "");
    }
    byte[] badUtf8 = {'{', '"', 'b', 'r', 'a', 'n', 'c', 'h', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
    refused4xx(() -> admin.send("POST", "/v1/apps/errors/updates", badUtf8, "application/json", Map.of()), "bad-json", "");
    for (String route : List.of("/v1/apps", "/v1/apps/errors/tokens", "/v1/apps/errors/assets/missing", "/v1/apps/errors/rollbacks")) {
      refused4xx(() -> admin.post(route, "{oops"), "bad-json", "not valid JSON");
      refused4xx(() -> admin.post(route, "[1,2]"), "bad-json", "JSON object");
    }
    refused4xx(() -> admin.put("/v1/apps/errors/channels/prod", "{oops"), "bad-json", "not valid JSON");
    refused4xx(() -> admin.patch("/v1/apps/errors/updates/" + groupId + "/rollout", "{oops"), "bad-json", "not valid JSON");
    refused4xx(() -> admin.post("/v1/apps/errors/assets/missing", Map.of("sha256", "abc")), "", "sha256");
    refused4xx(() -> admin.post("/v1/apps/errors/assets/missing", Map.of("sha256", List.of("../../etc/passwd"))), "invalid-sha256", "../../etc/passwd");
    System.out.println("wrong types and malformed JSON: " + tried + " requests refused with a 4xx JSON error naming the problem, no event appended");
  }

  @Test
  void refusesAnUploadWhoseBytesDoNotMatchItsHashAndPublishesOfFilesNeverStored() throws Exception {
    tried = 0;
    byte[] real = "console.log('real');".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] tampered = "console.log('evil');".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    refused4xx(() -> admin.putBytes("/v1/apps/errors/assets/" + ExportFixture.sha256(real), tampered, "application/javascript"), "hash-mismatch", ExportFixture.sha256(tampered));
    refused4xx(() -> admin.putBytes("/v1/apps/errors/assets/" + ExportFixture.sha256(real), new byte[0], "application/javascript"), "hash-mismatch", "");
    for (String addr : List.of("..%2f..%2fx", "%2e%2e", ExportFixture.sha256(real) + "x", ExportFixture.sha256(real).toUpperCase(java.util.Locale.ROOT))) {
      refused4xx(() -> admin.putBytes("/v1/apps/errors/assets/" + addr, real, "application/javascript"), "", "");
    }
    // the refused bytes were not stored: a publish naming them is refused too
    ObjectNode b = publishBody();
    ((ObjectNode) b.get("files").get("bundles/ios-0123.js")).put("sha256", ExportFixture.sha256(real)).put("size", real.length);
    refused4xx(() -> admin.post("/v1/apps/errors/updates", b), "asset-not-uploaded", "was never uploaded");
    System.out.println("hash mismatches: " + tried + " uploads/publishes refused, no event appended");
  }

  @Test
  void anIdempotencyKeyIsReplayedForTheSameRequestAndRefusedForAnotherOne() throws Exception {
    ObjectNode first = publishBody();
    first.put("branch", "idem");
    first.put("idempotencyKey", "idem-key-1");
    Http.Resp made = admin.post("/v1/apps/errors/updates", first);
    assertThat(made.status()).as(made.toString()).isEqualTo(201);
    Map<TopicPartition, Long> after = offsets.endOffsets(partitions);
    Http.Resp again = admin.post("/v1/apps/errors/updates", first);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().get("replayed").asBoolean()).isTrue();
    assertThat(again.json().get("groupId").asText()).isEqualTo(made.json().get("groupId").asText());
    assertThat(offsets.endOffsets(partitions)).isEqualTo(after);

    ObjectNode otherBranch = publishBody();
    otherBranch.put("branch", "idem-other");
    refused(() -> admin.post("/v1/apps/errors/updates", otherBranch, Map.of("Idempotency-Key", "idem-key-1")), 409, "idempotency-key-reused", made.json().get("groupId").asText());
    ObjectNode otherRuntime = publishBody();
    otherRuntime.put("branch", "idem");
    otherRuntime.put("runtimeVersion", "2");
    otherRuntime.put("idempotencyKey", "idem-key-1");
    refused(() -> admin.post("/v1/apps/errors/updates", otherRuntime), 409, "idempotency-key-reused", "a different publish needs a new key");
    refused(() -> admin.post("/v1/apps/errors/updates", first, Map.of("Idempotency-Key", "has space")), 400, "invalid-idempotency-key", "printable ASCII");

    // a roll back and a republish replay their key the same way and refuse it for another branch or runtime
    Map<String, Object> rollBack = Map.of("branch", "idem-rb", "runtimeVersion", "1", "embedded", true, "idempotencyKey", "idem-rb-1");
    Http.Resp rolled = admin.post("/v1/apps/errors/rollbacks", rollBack);
    assertThat(rolled.status()).as(rolled.toString()).isEqualTo(201);
    Http.Resp rolledAgain = admin.post("/v1/apps/errors/rollbacks", rollBack);
    assertThat(rolledAgain.status()).as(rolledAgain.toString()).isEqualTo(200);
    assertThat(rolledAgain.json().get("replayed").asBoolean()).isTrue();
    assertThat(rolledAgain.json().get("groupId").asText()).isEqualTo(rolled.json().get("groupId").asText());
    refused(
        () -> admin.post("/v1/apps/errors/rollbacks", Map.of("branch", "idem-rb-other", "runtimeVersion", "1", "embedded", true), Map.of("Idempotency-Key", "idem-rb-1")),
        409, "idempotency-key-reused", "a different roll back needs a new key");
    refused(
        () -> admin.post("/v1/apps/errors/rollbacks", Map.of("branch", "idem-rb", "runtimeVersion", "1", "embedded", true, "idempotencyKey", "idem-key-1")),
        409, "idempotency-key-reused", made.json().get("groupId").asText());
    Map<String, Object> republish = Map.of("branch", "idem-rp", "runtimeVersion", "1", "toGroupId", groupId, "idempotencyKey", "idem-rp-1");
    Http.Resp copied = admin.post("/v1/apps/errors/rollbacks", republish);
    assertThat(copied.status()).as(copied.toString()).isEqualTo(201);
    Http.Resp copiedAgain = admin.post("/v1/apps/errors/rollbacks", republish);
    assertThat(copiedAgain.status()).as(copiedAgain.toString()).isEqualTo(200);
    assertThat(copiedAgain.json().get("groupId").asText()).isEqualTo(copied.json().get("groupId").asText());
    refused(
        () -> admin.post("/v1/apps/errors/rollbacks", Map.of("branch", "idem-rp-other", "runtimeVersion", "1", "toGroupId", groupId, "idempotencyKey", "idem-rp-1")),
        409, "idempotency-key-reused", "a different republish needs a new key");
    refused(
        () -> admin.post("/v1/apps/errors/rollbacks", Map.of("branch", "idem-rp", "runtimeVersion", "2", "toGroupId", groupId, "idempotencyKey", "idem-rp-1")),
        409, "idempotency-key-reused", copied.json().get("groupId").asText());

    // concurrent first attempts with one key make one group and one event
    ObjectNode race = publishBody();
    race.put("branch", "idem-race");
    race.put("idempotencyKey", "idem-race-1");
    long before = offsets.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    List<java.util.concurrent.CompletableFuture<Http.Resp>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> admin.post("/v1/apps/errors/updates", race)));
    }
    java.util.Set<String> groups = new java.util.HashSet<>();
    int created = 0;
    for (var c : calls) {
      Http.Resp r = c.get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(r.status()).as(r.toString()).isIn(200, 201);
      created += r.status() == 201 ? 1 : 0;
      groups.add(r.json().get("groupId").asText());
    }
    long appended = offsets.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum() - before;
    System.out.println("idempotency: 6 concurrent publishes with one key -> " + created + " created, " + groups.size() + " group(s), " + appended + " log offsets");
    assertThat(groups).hasSize(1);
    assertThat(created).isEqualTo(1);
  }
}
