package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.events.Bucketing;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.ClientSelectionPolicy;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Protocol conformance of the manifest route (protocol.md §8) against a live edge fed by real Kafka,
 * with both fixture updates published by a test-only publisher ({@link FixtureManifests}, signed with
 * the fixture key). Answers are read with the independent toolkit ({@code dev.updraft.testing.protocol}:
 * a strict iOS-style multipart reader and OkHttp's reader) and signatures verified against the fixture
 * certificate, for iOS and Android, protocol 0 and 1, signed and unsigned. The §8 check each test
 * covers is in its comment; {@code edge-node/CONFORMANCE.md} has the table.
 */
@ExtendWith(RealInfrastructure.class)
class ManifestConformanceIT {
  static final String SIGNED = "signed-app";
  static final String PLAIN = "plain-app";
  static final Pattern UUID_RE = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  static final Pattern CREATED_AT = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");

  static TestLog log;
  static Vertx vertx;
  static EdgeNode edge;
  static EdgeHttp http;
  static SignatureVerifier verifier;

  static UpdateGroup signed1;
  static UpdateGroup signed2;
  static UpdateGroup plain1;
  static UpdateGroup plain2;
  static UpdateGroup rolledUpdate;
  static UpdateGroup rollback;
  static List<UpdateGroup> republishLine = new ArrayList<>();
  static UpdateGroup canaryControl;
  static UpdateGroup canary;

  /** One cell of the matrix: platform × protocol × signed. */
  record Variant(String platform, int protocol, boolean signed) {
    String app() {
      return signed ? SIGNED : PLAIN;
    }

    String path() {
      return "/apps/" + app() + "/manifest";
    }

    Device device() {
      Device d = Device.of(platform, protocol);
      return signed ? d.expectSignature() : d;
    }

    PlatformUpdate latest() {
      return (signed ? signed2 : plain2).platform(platform);
    }

    String protocolHeader() {
      return Integer.toString(protocol);
    }

    @Override
    public String toString() {
      return platform + " v" + protocol + (signed ? " signed" : " unsigned");
    }
  }

  static Stream<Variant> matrix() {
    List<Variant> all = new ArrayList<>();
    for (String platform : List.of("ios", "android")) {
      for (int protocol = 0; protocol <= 1; protocol++) {
        for (boolean signed : List.of(true, false)) {
          all.add(new Variant(platform, protocol, signed));
        }
      }
    }
    return all.stream();
  }

  static Stream<Variant> signedMatrix() {
    return matrix().filter(Variant::signed);
  }

  @BeforeAll
  static void publishAndStart(Infra infra) throws IOException {
    verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
    log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix());
    TestSigner signer = TestSigner.fixture();
    Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minus(1, ChronoUnit.HOURS);
    String noUpdate = "{\"type\":\"noUpdateAvailable\"}";
    String pem = Files.readString(Fixtures.certificatePem());

    log.publish(SIGNED, new EventPayload.AppCreated("Signed app"));
    log.publish(SIGNED, new EventPayload.SigningKeyRegistered(TestSigner.KEY_ID, pem, "fixture", noUpdate,
        signer.signatureHeader(noUpdate), List.of()));
    log.publish(SIGNED, new EventPayload.ChannelMapped("production", "main", null));
    signed1 = publish(SIGNED, FixtureManifests.group("main", "1.0.0", Fixtures.update1(), t, signer, null));
    signed2 = publish(SIGNED, FixtureManifests.group("main", "1.0.0", Fixtures.update2(), t.plusSeconds(60), signer, null));
    rolledUpdate = publish(SIGNED, FixtureManifests.group("rolled", "1.0.0", Fixtures.update1(), t.plusSeconds(120), signer, null));
    rollback = FixtureManifests.rollback("rolled", "1.0.0", t.plusSeconds(180), signer);
    log.publish(SIGNED, new EventPayload.RolledBackToEmbedded(rollback));
    republishLine.add(publish(SIGNED, FixtureManifests.group("republish", "1.0.0", Fixtures.update1(), t.plusSeconds(240), signer, null)));
    republishLine.add(publish(SIGNED, FixtureManifests.group("republish", "1.0.0", Fixtures.update2(), t.plusSeconds(300), signer, null)));
    republishLine.add(publish(SIGNED, FixtureManifests.group("republish", "1.0.0", Fixtures.update1(), t.plusSeconds(360), signer, null)));

    log.publish(PLAIN, new EventPayload.AppCreated("Plain app"));
    plain1 = publish(PLAIN, FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, null, null));
    plain2 = publish(PLAIN, FixtureManifests.group("production", "1.0.0", Fixtures.update2(), t.plusSeconds(60), null, null));
    canaryControl = publish(PLAIN, FixtureManifests.group("canary", "1.0.0", Fixtures.update1(), t, null, null));
    canary = publish(PLAIN, FixtureManifests.group("canary", "1.0.0", Fixtures.update2(), t.plusSeconds(60), null,
        new EventPayload.Rollout("canary-rollout", 50, canaryControl.groupId(), null)));

    vertx = Edges.vertx();
    edge = Edges.startReady(vertx, log, "conformance", "event-loops", "2");
    http = new EdgeHttp(edge.port());
  }

  static UpdateGroup publish(String app, UpdateGroup g) {
    log.publish(app, new EventPayload.UpdatePublished(g));
    return g;
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      Edges.await(edge.close());
    }
    if (vertx != null) {
      Edges.await(vertx.close());
    }
    if (log != null) {
      log.close();
    }
  }

  static EdgeHttp.Response get(String path, Device d) {
    return http.get(path, d.headers());
  }

  static void assertProtocolHeaders(EdgeHttp.Response r, String protocol) {
    assertThat(r.header("expo-protocol-version")).as("expo-protocol-version of %s", r).isEqualTo(protocol);
    assertThat(r.header("expo-sfv-version")).as("expo-sfv-version of %s", r).isEqualTo("0");
    assertThat(r.header("cache-control")).as("cache-control of %s", r).isEqualTo("private, max-age=0");
  }

  static void assertJsonError(EdgeHttp.Response r, int status, String code) {
    assertThat(r.status()).as("%s", r).isEqualTo(status);
    assertThat(r.header("content-type")).isEqualTo("application/json");
    JsonNode e = r.json().path("error");
    assertThat(e.path("code").asText()).isEqualTo(code);
    assertThat(e.path("message").asText()).isNotBlank().doesNotContain("\n");
  }

  // ---- the matrix: iOS and Android, protocol 0 and 1, signed and unsigned ----

  /** §8 checks 7, 11, 12, 13, 14, 15, 16, 17, 18, 29, 31. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("matrix")
  void servesTheLatestManifestReadableByTheIosAndAndroidReaders(Variant v) {
    EdgeHttp.Response r = get(v.path(), v.device());

    MultipartBody body = Answers.multipart(r); // 7, 13: both readers, strict closing delimiter
    assertProtocolHeaders(r, v.protocolHeader()); // 11, 12
    assertThat(r.header("content-type")).isEqualTo("multipart/mixed; boundary=" + body.boundary()); // 14
    assertThat(Answers.names(body)).containsExactly("manifest", "extensions"); // 31: v0 too has the manifest part
    for (MultipartPart p : body.parts()) {
      assertThat(p.bodyText()).doesNotContain(body.boundary()); // 14
      for (String name : p.headerNames()) {
        assertThat(name).isEqualTo(name.toLowerCase(Locale.ROOT)); // 15
      }
      assertThat(p.headerExact("content-disposition")).isEqualTo("inline; name=\"" + p.name() + "\""); // 15
    }
    MultipartPart manifest = body.part("manifest");
    assertThat(manifest.headerExact("content-type")).isEqualTo("application/json"); // 16
    assertThat(manifest.body()).isEqualTo(v.latest().body().getBytes(StandardCharsets.UTF_8)); // served unchanged
    JsonNode m = FixtureManifests.JSON.valueToTree(parse(manifest.bodyText()));
    assertThat(m.path("id").asText()).matches(UUID_RE).isEqualTo(v.latest().updateId()); // 17
    assertThat(m.path("createdAt").asText()).matches(CREATED_AT); // 17
    assertThat(m.path("runtimeVersion").asText()).isEqualTo("1.0.0"); // 18: byte-equal to the request's
    JsonNode ext = parse(body.part("extensions").bodyText());
    assertThat(ext.path("assetRequestHeaders").isObject()).isTrue(); // 16
    if (!v.signed()) {
      assertThat(manifest.header("expo-signature")).isNull(); // 29: unsigned answer, still valid
      assertThat(r.header("expo-signature")).isNull();
    }
  }

  /** §8 checks 25, 26, 27. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("signedMatrix")
  void signedManifestVerifiesOverTheExactPartBytesAndFailsWhenOneByteChanges(Variant v) {
    MultipartPart manifest = Answers.multipart(get(v.path(), v.device())).part("manifest");

    String header = manifest.headerExact("expo-signature"); // 25: exact lower-case name, as iOS looks it up
    assertThat(header).isNotNull();
    ExpoSignature sig = ExpoSignature.parse(header); // 27: RFC 8941, sig a quoted string of padded base64
    assertThat(sig.keyId()).isEqualTo(TestSigner.KEY_ID); // 25
    assertThat(sig.alg()).isEqualTo(ExpoSignature.RSA_SHA256);
    byte[] signed = manifest.body();
    assertThat(verifier.verify(signed, sig)).isTrue(); // 26
    signed[signed.length / 2] ^= 0x01;
    assertThat(verifier.verify(signed, sig)).isFalse(); // 26: one changed byte fails
  }

  /** §8 checks 30, 31, 34, and 25/26 for the directive. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("matrix")
  void deviceRunningTheLatestGetsNoUpdateInV1AndTheSameManifestInV0(Variant v) {
    EdgeHttp.Response r = get(v.path(), v.device().current(v.latest().updateId()));
    MultipartBody body = Answers.multipart(r);
    assertProtocolHeaders(r, v.protocolHeader());
    if (v.protocol() == 0) {
      assertThat(Answers.names(body)).containsExactly("manifest", "extensions"); // 31: never a directive
      assertThat(body.part("manifest").body()).isEqualTo(v.latest().body().getBytes(StandardCharsets.UTF_8)); // 30
      return;
    }
    assertThat(Answers.names(body)).containsExactly("directive"); // 30
    MultipartPart directive = body.part("directive");
    assertThat(directive.headerExact("content-type")).isEqualTo("application/json");
    assertThat(parse(directive.bodyText()).path("type").asText()).isEqualTo("noUpdateAvailable"); // 34
    if (v.signed()) {
      ExpoSignature sig = ExpoSignature.parse(directive.headerExact("expo-signature"));
      assertThat(verifier.verify(directive.body(), sig)).isTrue();
    } else {
      assertThat(directive.header("expo-signature")).isNull();
    }
  }

  /** §8 checks 3, 4, 11 (errors), and the JSON error body. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("matrix")
  void refusalsCarryTheProtocolHeadersAndAJsonErrorNamingTheProblem(Variant v) {
    EdgeHttp.Response noRuntime = get(v.path(), v.device().runtime(null));
    assertJsonError(noRuntime, 400, "missing-runtime-version");
    assertProtocolHeaders(noRuntime, v.protocolHeader());
    EdgeHttp.Response web = get(v.path(), v.device().platform("web"));
    assertJsonError(web, 400, "invalid-platform");
    assertThat(web.json().path("error").path("message").asText()).contains("'web'");
    assertProtocolHeaders(web, v.protocolHeader());
  }

  // ---- single checks ----

  /** §8 check 1. */
  @Test
  void otherMethodsGet405() {
    for (String method : List.of("POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")) {
      EdgeHttp.Response r = http.send(method, "/apps/" + SIGNED + "/manifest", Device.ios().headers());
      assertThat(r.status()).as(method).isEqualTo(405);
      assertThat(r.header("allow")).isEqualTo("GET");
      assertProtocolHeaders(r, "1");
      if (!method.equals("HEAD")) {
        assertJsonError(r, 405, "method-not-allowed");
      }
    }
  }

  /** §8 check 2. */
  @Test
  void headerNamesInAnyCaseGiveTheSameAnswer() {
    EdgeHttp.Response lower = get("/apps/" + SIGNED + "/manifest", Device.ios().current(signed1.platform("ios").updateId()));
    EdgeHttp.Response upper = http.get("/apps/" + SIGNED + "/manifest",
        "ACCEPT", Device.CLIENT_ACCEPT, "EXPO-PLATFORM", "ios", "EXPO-PROTOCOL-VERSION", "1",
        "EXPO-RUNTIME-VERSION", "1.0.0", "EXPO-CHANNEL-NAME", "production",
        "Expo-Current-Update-ID", signed1.platform("ios").updateId(), "EAS-Client-ID", "ABC");
    assertThat(upper.status()).isEqualTo(200);
    assertThat(upper.body()).isEqualTo(lower.body());
    assertThat(upper.header("content-type")).isEqualTo(lower.header("content-type"));
  }

  /** §8 check 3. */
  @Test
  void unknownOrMissingPlatformGets400() {
    for (String platform : List.of("web", "IOS", "windows")) {
      assertJsonError(get("/apps/" + PLAIN + "/manifest", Device.ios().platform(platform)), 400, "invalid-platform");
    }
    EdgeHttp.Response missing = get("/apps/" + PLAIN + "/manifest", Device.ios().platform(null));
    assertJsonError(missing, 400, "invalid-platform");
    assertThat(missing.json().path("error").path("message").asText()).contains("missing");
  }

  /** §8 check 4. */
  @Test
  void missingRuntimeVersionGets400() {
    EdgeHttp.Response r = get("/apps/" + PLAIN + "/manifest", Device.ios().runtime(null));
    assertJsonError(r, 400, "missing-runtime-version");
    assertProtocolHeaders(r, "1");
  }

  /** §8 check 5. */
  @Test
  void unknownRuntimeOrChannelNeverGetsAnotherRuntimesManifest() {
    for (String runtime : List.of("1.0.1", "1.0", "2.0.0", "1.0.0-beta")) {
      MultipartBody b = Answers.multipart(get("/apps/" + PLAIN + "/manifest", Device.ios().runtime(runtime)));
      assertThat(Answers.names(b)).as(runtime).containsExactly("directive");
      assertThat(parse(b.part("directive").bodyText()).path("type").asText()).isEqualTo("noUpdateAvailable");
      EdgeHttp.Response v0 = get("/apps/" + PLAIN + "/manifest", Device.of("ios", 0).runtime(runtime));
      assertJsonError(v0, 404, "no-update-for-runtime");
      assertProtocolHeaders(v0, "0");
    }
    MultipartBody channel = Answers.multipart(get("/apps/" + PLAIN + "/manifest", Device.ios().channel("nope")));
    assertThat(Answers.names(channel)).containsExactly("directive");
  }

  /** §8 check 6. */
  @Test
  void queryParametersWorkAndAHeaderWinsOverItsParameter() {
    Device bare = Device.ios().platform(null).runtime(null).channel(null);
    MultipartBody q = Answers.multipart(get("/apps/" + PLAIN + "/manifest?platform=android&runtime-version=1.0.0"
        + "&channel-name=production", bare));
    assertThat(q.part("manifest").bodyText()).isEqualTo(plain2.platform("android").body());
    MultipartBody headerWins = Answers.multipart(get("/apps/" + PLAIN + "/manifest?platform=android&runtime-version=9"
        + "&channel-name=nope", Device.ios()));
    assertThat(headerWins.part("manifest").bodyText()).isEqualTo(plain2.platform("ios").body());
  }

  /** §8 check 8. */
  @Test
  void jsonOnlyAcceptGetsTheBareManifestWithTheSignatureAsResponseHeader() {
    for (String platform : List.of("ios", "android")) {
      EdgeHttp.Response r = get("/apps/" + SIGNED + "/manifest", Device.ios().platform(platform).accept("application/json")
          .expectSignature());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("content-type")).isEqualTo("application/json");
      assertProtocolHeaders(r, "1");
      assertThat(r.body()).isEqualTo(signed2.platform(platform).body().getBytes(StandardCharsets.UTF_8));
      ExpoSignature sig = ExpoSignature.parse(r.header("expo-signature"));
      assertThat(verifier.verify(r.body(), sig)).isTrue();
    }
    EdgeHttp.Response unsigned = get("/apps/" + SIGNED + "/manifest", Device.ios().accept("application/json"));
    assertThat(unsigned.header("expo-signature")).isNull();
  }

  /** §8 check 9. */
  @Test
  void expoJsonAcceptGetsThatTypeAndHtmlGets406() {
    EdgeHttp.Response r = get("/apps/" + PLAIN + "/manifest", Device.ios().accept("application/expo+json"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("content-type")).isEqualTo("application/expo+json");
    assertThat(r.body()).isEqualTo(plain2.platform("ios").body().getBytes(StandardCharsets.UTF_8));
    EdgeHttp.Response html = get("/apps/" + PLAIN + "/manifest", Device.ios().accept("text/html"));
    assertJsonError(html, 406, "not-acceptable");
    assertProtocolHeaders(html, "1");
  }

  /** §8 check 10. */
  @Test
  void directiveRequestedWithJsonOnlyAcceptGets406() {
    EdgeHttp.Response r = get("/apps/" + PLAIN + "/manifest",
        Device.ios().accept("application/json").current(plain2.platform("ios").updateId()));
    assertJsonError(r, 406, "directive-needs-multipart");
    assertProtocolHeaders(r, "1");
    EdgeHttp.Response rollbackJson = get("/apps/" + SIGNED + "/manifest", Device.ios().channel("rolled")
        .accept("application/expo+json"));
    assertJsonError(rollbackJson, 406, "directive-needs-multipart");
  }

  /** §8 check 11 for 503: an edge that has not caught up answers 503 with the protocol headers. */
  @Test
  void edgeThatHasNotCaughtUpAnswers503WithTheProtocolHeaders() {
    // this edge's events topic does not exist yet, so it can never be ready
    EdgeNode waiting = Edges.start(vertx, log.bootstrap, log.prefix + "missing.", "waiting", "checkins", "false");
    try {
      EdgeHttp w = new EdgeHttp(waiting.port());
      for (int protocol = 0; protocol <= 1; protocol++) {
        EdgeHttp.Response r = w.get("/apps/" + PLAIN + "/manifest", Device.of("ios", protocol).headers());
        assertJsonError(r, 503, "not-ready");
        assertProtocolHeaders(r, Integer.toString(protocol));
      }
      assertThat(w.get("/readyz").status()).isEqualTo(503);
      assertThat(w.get("/healthz").status()).isEqualTo(200);
    } finally {
      Edges.await(waiting.close());
    }
  }

  /** §8 checks 19, 20, 21, 22, 23, 44: the served manifests against the fixture files. */
  @Test
  void servedManifestsDescribeTheFixtureFilesExactly() throws IOException {
    Map<String, byte[]> filesByKey = new HashMap<>();
    for (Path export : List.of(Fixtures.update1(), Fixtures.update2())) {
      try (Stream<Path> files = Files.walk(export)) {
        for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
          byte[] b = Files.readAllBytes(f);
          filesByKey.put(FixtureManifests.md5Hex(b), b);
        }
      }
    }
    Map<String, String> hashOfKey = new HashMap<>();
    for (String platform : List.of("ios", "android")) {
      for (UpdateGroup g : List.of(signed1, signed2)) {
        JsonNode m = served(platform, g);
        Set<String> keys = new HashSet<>();
        List<JsonNode> all = new ArrayList<>();
        all.add(m.path("launchAsset"));
        m.path("assets").forEach(all::add);
        for (JsonNode a : all) {
          String key = a.path("key").asText();
          assertThat(keys.add(key)).as("key %s appears once", key).isTrue(); // 21
          byte[] file = filesByKey.get(key);
          assertThat(file).as("fixture file for key %s", key).isNotNull();
          String hash = a.path("hash").asText();
          assertThat(hash).isEqualTo(FixtureManifests.sha256Url(file)).doesNotContain("=", "+", "/"); // 19
          assertThat(hashOfKey.merge(key, hash, (x, y) -> x)).isEqualTo(hash); // 22: one hash per key everywhere
          assertThat(a.path("url").asText()).startsWith("http"); // absolute
        }
        for (JsonNode a : m.path("assets")) {
          assertThat(a.path("fileExtension").asText()).startsWith("."); // 20
          assertThat(a.path("contentType").asText()).isNotBlank(); // 20
          assertThat(a.path("key").asText()).isEqualTo(FixtureManifests.md5Hex(filesByKey.get(a.path("key").asText()))); // 23
        }
        assertThat(m.path("launchAsset").has("fileExtension")).isFalse();
        MultipartBody body = Answers.multipart(get("/apps/" + SIGNED + "/manifest", Device.ios().platform(platform)));
        Iterator<String> declared = parse(body.part("extensions").bodyText()).path("assetRequestHeaders").fieldNames();
        declared.forEachRemaining(k -> assertThat(keys).contains(k)); // 44
      }
    }
  }

  /** A published group's manifest as served to a device running the other update of the pair. */
  private static JsonNode served(String platform, UpdateGroup g) {
    PlatformUpdate u = g.platform(platform);
    assertThat(parse(u.body()).path("id").asText()).isEqualTo(u.updateId());
    if (g == signed2) {
      return parse(Answers.multipart(get("/apps/" + SIGNED + "/manifest", Device.ios().platform(platform)))
          .part("manifest").bodyText());
    }
    // update-1 is no longer served on main; its bytes are those published (served earlier, checked by the matrix)
    return parse(u.body());
  }

  /**
   * §8 checks 24, 42, 43: a manifest answer names the device's branch in {@code expo-manifest-filters} (an SF
   * dictionary with the lower-case key {@code branchname} and an SF string), the manifest's
   * {@code metadata.branchName} passes it, and no server-defined headers are sent (nothing to replay or
   * clear).
   */
  @Test
  void sendsTheBranchAsManifestFiltersThatTheManifestPassesAndNoServerDefinedHeaders() throws Exception {
    EdgeHttp.Response r = get("/apps/" + SIGNED + "/manifest", Device.ios());
    assertThat(r.header("expo-manifest-filters")).isEqualTo("branchname=\"main\"");
    Map<String, ListElement<? extends Object>> filters =
        Parser.parseDictionary(r.header("expo-manifest-filters")).get();
    assertThat(filters).containsOnlyKeys("branchname");
    assertThat(filters.get("branchname")).isInstanceOf(StringItem.class);
    assertThat(r.header("expo-server-defined-headers")).isNull();
    String manifest = Answers.multipart(r).part("manifest").bodyText();
    assertThat(parse(manifest).path("metadata").path("branchName").asText()).isEqualTo("main");
    assertThat(ClientSelectionPolicy.matchesFilters(ClientSelectionPolicy.Update.fromManifest(manifest),
        ClientSelectionPolicy.filters(r.header("expo-manifest-filters")))).isTrue();
  }

  /** §8 checks 32, 34, 31 (v0 rollback gets 404 like the reference server). */
  @Test
  void rollbackIsADirectiveWithACommitTimeAfterTheRunningUpdate() {
    String running = rolledUpdate.platform("ios").updateId();
    EdgeHttp.Response r = get("/apps/" + SIGNED + "/manifest", Device.ios().channel("rolled").current(running)
        .embedded(UUID.randomUUID().toString()).expectSignature());
    MultipartBody b = Answers.multipart(r);
    assertThat(Answers.names(b)).containsExactly("directive");
    MultipartPart directive = b.part("directive");
    JsonNode d = parse(directive.bodyText());
    assertThat(d.path("type").asText()).isEqualTo("rollBackToEmbedded"); // 34
    String commitTime = d.path("parameters").path("commitTime").asText();
    assertThat(commitTime).matches(CREATED_AT);
    assertThat(Instant.parse(commitTime)).isAfter(Instant.parse(rolledUpdate.platform("ios").createdAt())); // 32
    assertThat(verifier.verify(directive.body(), ExpoSignature.parse(directive.headerExact("expo-signature")))).isTrue();

    String embedded = UUID.randomUUID().toString();
    MultipartBody onEmbedded = Answers.multipart(get("/apps/" + SIGNED + "/manifest",
        Device.ios().channel("rolled").current(embedded).embedded(embedded)));
    assertThat(parse(onEmbedded.part("directive").bodyText()).path("type").asText()).isEqualTo("noUpdateAvailable"); // 32

    EdgeHttp.Response v0 = get("/apps/" + SIGNED + "/manifest", Device.of("ios", 0).channel("rolled").current(running));
    assertJsonError(v0, 404, "rollback-needs-protocol-1");
    assertProtocolHeaders(v0, "0");
  }

  /** §8 check 33: the newest entry of a branch is the republish, with a new id and a later createdAt. */
  @Test
  void republishIsServedWithANewIdAndALaterCreatedAt() {
    UpdateGroup republish = republishLine.get(2);
    for (String platform : List.of("ios", "android")) {
      JsonNode m = parse(Answers.multipart(get("/apps/" + SIGNED + "/manifest", Device.ios().platform(platform)
          .channel("republish"))).part("manifest").bodyText());
      assertThat(m.path("id").asText()).isEqualTo(republish.platform(platform).updateId());
      for (UpdateGroup earlier : republishLine.subList(0, 2)) {
        assertThat(m.path("id").asText()).isNotEqualTo(earlier.platform(platform).updateId());
        assertThat(Instant.parse(m.path("createdAt").asText()))
            .isAfter(Instant.parse(earlier.platform(platform).createdAt()));
      }
    }
  }

  /** §8 check 35 (the check-in half is in CheckInIT). */
  @Test
  void updateReportedFailedIsNotOfferedAgain() {
    String latest = plain2.platform("ios").updateId();
    String running = plain1.platform("ios").updateId();
    MultipartBody b = Answers.multipart(get("/apps/" + PLAIN + "/manifest", Device.ios().current(running)
        .failed("\"" + latest + "\", \"" + UUID.randomUUID() + "\"")));
    assertThat(Answers.names(b)).containsExactly("directive");
    assertThat(parse(b.part("directive").bodyText()).path("type").asText()).isEqualTo("noUpdateAvailable");
    EdgeHttp.Response v0 = get("/apps/" + PLAIN + "/manifest", Device.of("ios", 0).current(running)
        .failed("\"" + latest + "\""));
    assertThat(v0.status()).isEqualTo(404);
    assertThat(v0.text()).doesNotContain(latest + "\",\"createdAt");
  }

  /** §8 check 36 (the ±1 % share over 10,000 ids is ResolverTest's). */
  @Test
  void rolloutAnswerIsStableAcrossRepeatsAndLetterCaseOfTheClientId() {
    int inside = 0;
    for (int i = 0; i < 100; i++) {
      String id = UUID.randomUUID().toString();
      String served = null;
      for (String sent : List.of(id, id.toUpperCase(Locale.ROOT), id, id.toUpperCase(Locale.ROOT))) {
        String s = parse(Answers.multipart(get("/apps/" + PLAIN + "/manifest", Device.ios().channel("canary").client(sent)))
            .part("manifest").bodyText()).path("id").asText();
        if (served != null) {
          assertThat(s).as("client %s", sent).isEqualTo(served);
        }
        served = s;
      }
      boolean in = Bucketing.inRollout(id, "canary-rollout", 50);
      assertThat(served).isEqualTo((in ? canary : canaryControl).platform("ios").updateId());
      inside += in ? 1 : 0;
    }
    assertThat(inside).isBetween(1, 99); // both sides of the rollout were exercised
    String noClient = parse(Answers.multipart(get("/apps/" + PLAIN + "/manifest", Device.ios().channel("canary")))
        .part("manifest").bodyText()).path("id").asText();
    assertThat(noClient).isEqualTo(canaryControl.platform("ios").updateId());
  }

  /** §8 check 37. */
  @Test
  void channelChangeFromTheSameDeviceTakesEffectAtOnce() {
    Device d = Device.ios().client("same-device").current(rolledUpdate.platform("ios").updateId()).embedded("e");
    assertThat(Answers.names(Answers.multipart(get("/apps/" + SIGNED + "/manifest", d.channel("production")))))
        .containsExactly("manifest", "extensions");
    assertThat(parse(Answers.multipart(get("/apps/" + SIGNED + "/manifest", d.channel("rolled"))).part("directive")
        .bodyText()).path("type").asText()).isEqualTo("rollBackToEmbedded");
    assertThat(Answers.names(Answers.multipart(get("/apps/" + SIGNED + "/manifest", d.channel("production")))))
        .containsExactly("manifest", "extensions");
  }

  @Test
  void signatureRequestedFromAnAppWithoutAKeyGets400SayingSo() {
    EdgeHttp.Response r = get("/apps/" + PLAIN + "/manifest", Device.ios().expectSignature());
    assertJsonError(r, 400, "signing-not-configured");
    assertThat(r.json().path("error").path("message").asText()).contains("no code-signing key");
    assertProtocolHeaders(r, "1");
  }

  @Test
  void appIdComesFromThePathTheHeaderOrTheQuery() {
    byte[] byPath = get("/apps/" + PLAIN + "/manifest", Device.ios()).body();
    assertThat(get("/manifest", Device.ios().appHeader(PLAIN)).body()).isEqualTo(byPath);
    assertThat(get("/manifest?app=" + PLAIN, Device.ios()).body()).isEqualTo(byPath);
    assertJsonError(get("/manifest", Device.ios()), 400, "missing-app-id");
    EdgeHttp.Response unknown = get("/apps/nope/manifest", Device.ios());
    assertJsonError(unknown, 404, "unknown-app");
    assertProtocolHeaders(unknown, "1");
    assertJsonError(get("/apps/" + PLAIN + "/other", Device.ios()), 404, "not-found");
  }

  @Test
  void aQueryThatIsNotPercentEncodingGets400NotSilence() {
    // such a query used to make the handler throw, and the device waited for an answer that never came
    for (String query : List.of("platform=%zz", "channel-name=%", "x=%E0%A4%A", "app=%u0041")) {
      EdgeHttp.Response r = http.raw("GET /apps/" + PLAIN + "/manifest?" + query + " HTTP/1.1\r\nhost: 127.0.0.1\r\n"
          + "expo-platform: ios\r\nexpo-runtime-version: 1.0.0\r\nexpo-channel-name: production\r\n"
          + "expo-protocol-version: 1\r\nconnection: close\r\n\r\n");
      assertJsonError(r, 400, "invalid-query");
      assertProtocolHeaders(r, "1");
    }
    assertJsonError(http.raw("GET /manifest?app=%zz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"), 400, "invalid-query");
  }

  @Test
  void aHeaderWithAControlCharacterGetsA400JsonErrorNotAnEmptyAnswer() {
    // Netty refuses these before any handler; Vert.x's default answer was a 400 with no body
    for (String header : List.of("expo-channel-name: prod\u0000uction", "eas-client-id: dev\u0001ice", "expo-platform: i\u007fos")) {
      EdgeHttp.Response r = http.raw("GET /apps/" + PLAIN + "/manifest HTTP/1.1\r\nhost: 127.0.0.1\r\nexpo-runtime-version: 1.0.0\r\n"
          + "expo-protocol-version: 1\r\n" + header + "\r\n\r\n");
      assertJsonError(r, 400, "bad-request");
      assertThat(r.json().path("error").path("message").asText()).as(header).startsWith("the request is not valid HTTP/1.1");
    }
  }

  @Test
  void otherHttpVersionsGet400AndABadBodyDoesNotSwallowTheAnswer() {
    // Vert.x alone answers 501 to these request lines, and drops the answer when a body is malformed
    for (String version : List.of("HTTP/2.0", "HTTP/0.9", "HTTP/9.9", "http/1.1")) {
      EdgeHttp.Response r = http.raw("GET /apps/" + PLAIN + "/manifest " + version + "\r\nhost: 127.0.0.1\r\n\r\n");
      assertJsonError(r, 400, "unsupported-http-version");
      assertThat(r.json().path("error").path("message").asText()).containsIgnoringCase(version);
    }
    EdgeHttp.Response badChunk = http.raw("GET /apps/" + PLAIN + "/manifest HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        + "expo-platform: ios\r\nexpo-runtime-version: 1.0.0\r\nexpo-channel-name: production\r\n"
        + "expo-protocol-version: 1\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n");
    assertThat(badChunk.status()).isEqualTo(200);
    assertThat(Answers.names(Answers.multipart(badChunk))).contains("manifest");
  }

  @Test
  void unsupportedOrRepeatedProtocolVersionIsRefused() {
    assertJsonError(get("/apps/" + PLAIN + "/manifest", Device.ios().protocol("2")), 406, "unsupported-protocol-version");
    EdgeHttp.Response twice = http.get("/apps/" + PLAIN + "/manifest", "expo-platform", "ios", "expo-runtime-version",
        "1.0.0", "expo-channel-name", "production", "expo-protocol-version", "1", "expo-protocol-version", "1");
    assertJsonError(twice, 400, "duplicate-header");
  }

  @Test
  void opsRoutesAnswer() {
    assertThat(http.get("/healthz").status()).isEqualTo(200);
    EdgeHttp.Response ready = http.get("/readyz");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().path("apps").asInt()).isEqualTo(2);
    assertThat(ready.json().path("logStalenessSeconds").asDouble()).as("seconds since the reader heard from Kafka").isBetween(0.0, 5.0);
    get("/apps/" + PLAIN + "/manifest", Device.ios());
    String metrics = http.get("/metrics").text();
    assertThat(metrics).contains("updraft_edge_requests_total{outcome=\"update\"}", "updraft_edge_request_seconds_bucket",
        "updraft_edge_image_apps 2.0", "updraft_edge_events_applied_total", "updraft_edge_checkins_sent_total",
        "updraft_edge_log_lag_records", "updraft_edge_log_staleness_seconds", "jvm_memory_used_bytes",
        "updraft_edge_event_loop_delay_seconds_bucket{loop=\"0\",le=\"0.05\"}", "updraft_edge_event_loop_delay_seconds_max{loop=\"1\"}");
    // each of the edge's two event loops (--event-loops 2) is probed every 100 ms
    for (String loop : List.of("0", "1")) {
      Edges.until("a run of loop " + loop + "'s delay probe", () -> CheckInIT.metric(http.get("/metrics").text(),
          "updraft_edge_event_loop_delay_seconds_count{loop=\"" + loop + "\"}") > 0, Duration.ofSeconds(10));
    }
  }

  static JsonNode parse(String json) {
    try {
      return FixtureManifests.JSON.readTree(json);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }
}
