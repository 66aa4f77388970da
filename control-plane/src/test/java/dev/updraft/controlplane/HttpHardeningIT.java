package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.RawExchange;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control port's transport hardening on real servers: HTTPS with {@code --tls-cert}/{@code --tls-key}
 * (and plain HTTP no longer answered on that port), CORS only for {@code --cors-origin}, and bounded
 * request heads, request lines and bodies answered with a 4xx JSON error while the server keeps serving.
 */
@ExtendWith(RealInfrastructure.class)
class HttpHardeningIT {
  static final String CONSOLE = "https://console.example.com";
  static Vertx vertx;
  static ControlPlane plain;
  static ControlPlane tls;
  static HttpClient trusting;
  static Path plainDir;
  static final HttpClient DEFAULT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    KeyPair kp = TestCerts.rsa();
    Path cert = Files.writeString(dir.resolve("cert.pem"), TestCerts.tlsServer(kp));
    Path key = Files.writeString(dir.resolve("key.pem"), TestCerts.pem(kp.getPrivate()));
    plainDir = dir.resolve("plain");
    plain = TestSupport.start(vertx, TestSupport.config(infra, plainDir, "max-asset-bytes", "2048", "max-request-bytes", "65536"));
    tls =
        TestSupport.start(
            vertx,
            TestSupport.config(
                infra, dir.resolve("tls"), "topic-prefix", infra.topicPrefix() + "tls.", "tls-cert", cert.toString(), "tls-key", key.toString(),
                "cors-origin", CONSOLE + ",http://127.0.0.1:19006"));
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(cert)) {
      ks.setCertificateEntry("server", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    trusting = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(10)).build();
  }

  @AfterAll
  static void stop() {
    TestSupport.await(plain.close());
    TestSupport.await(tls.close());
    TestSupport.await(vertx.close());
  }

  static HttpResponse<String> send(HttpClient c, String method, String url, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String https(String path) {
    return "https://127.0.0.1:" + tls.port() + path;
  }

  static String http(ControlPlane cp, String path) {
    return "http://127.0.0.1:" + cp.port() + path;
  }

  @Test
  void aClientOfferingAnH2cUpgradeIsAnsweredInHttp11AndALargeAnswerArrivesWhole() throws Exception {
    // Java's HttpClient (the CLI's) offers an h2c upgrade on plain HTTP; Vert.x took it, and 7 of 40 fresh
    // connections fetching the 89 kB description failed with a broken HTTP/2 frame (ProtocolException)
    HttpClient http11 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    String expected = send(http11, "GET", http(plain, "/v1/openapi.yaml"), null).body();
    assertThat(expected.length()).isGreaterThan(50_000);
    for (int i = 0; i < 40; i++) {
      HttpClient fresh = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build(); // HTTP/2 preferred: offers h2c
      HttpResponse<String> r = send(fresh, "GET", http(plain, "/v1/openapi.yaml"), null, "authorization", "Bearer " + TestSupport.ADMIN);
      assertThat(r.version()).as("request %d", i).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(r.body()).as("request %d", i).isEqualTo(expected);
    }
  }

  @Test
  void servesTheApiOverHttpsWithTheConfiguredCertificateAndNoLongerSpeaksPlainHttp() throws Exception {
    assertThat(tls.publicUrl()).isEqualTo("https://127.0.0.1:" + tls.port());
    HttpResponse<String> health = send(trusting, "GET", https("/healthz"), null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.sslSession()).isPresent();
    HttpResponse<String> created =
        send(trusting, "POST", https("/v1/apps"), "{\"appId\":\"over-tls\"}", "Authorization", "Bearer " + TestSupport.ADMIN, "Content-Type", "application/json");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    HttpResponse<String> listed = send(trusting, "GET", https("/v1/apps"), null, "Authorization", "Bearer " + TestSupport.ADMIN);
    assertThat(listed.body()).contains("\"over-tls\"");
    // a client that does not trust the certificate refuses the server
    assertThatThrownBy(() -> send(DEFAULT, "GET", https("/healthz"), null)).isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
    // plain HTTP on the TLS port gets no HTTP answer at all
    assertThatThrownBy(() -> send(DEFAULT, "GET", "http://127.0.0.1:" + tls.port() + "/healthz", null)).isInstanceOf(IOException.class);
    String raw = rawAnswer(tls.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(raw).doesNotStartWith("HTTP/1.1 200").doesNotContain("\"status\"");
    System.out.println("TLS: HTTPS answered 200/201 with session " + health.sslSession().get().getProtocol()
        + "; plain HTTP on the port answered " + raw.length() + " bytes that are not an HTTP answer");
    // and the port still serves HTTPS after that
    assertThat(send(trusting, "GET", https("/healthz"), null).statusCode()).isEqualTo(200);
  }

  @Test
  void withoutCorsOriginNoResponseCarriesCorsHeadersAndPreflightsGetNoAllowHeaders() throws Exception {
    HttpResponse<String> get = send(DEFAULT, "GET", http(plain, "/v1/apps"), null, "Origin", CONSOLE, "Authorization", "Bearer " + TestSupport.ADMIN);
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(corsHeaders(get)).isEmpty();
    for (String origin : List.of(CONSOLE, "https://evil.example", "null")) {
      HttpResponse<String> pre =
          send(DEFAULT, "OPTIONS", http(plain, "/v1/apps"), null, "Origin", origin, "Access-Control-Request-Method", "POST",
              "Access-Control-Request-Headers", "authorization,content-type");
      assertThat(pre.statusCode()).as(origin).isBetween(400, 499);
      assertThat(corsHeaders(pre)).as(origin).isEmpty();
    }
  }

  @Test
  void withCorsOriginOnlyListedOriginsAreEchoed() throws Exception {
    HttpResponse<String> get = send(trusting, "GET", https("/v1/apps"), null, "Origin", CONSOLE, "Authorization", "Bearer " + TestSupport.ADMIN);
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.headers().firstValue("access-control-allow-origin")).hasValue(CONSOLE);
    assertThat(get.headers().allValues("vary")).anySatisfy(v -> assertThat(v).containsIgnoringCase("origin"));
    HttpResponse<String> refused = send(trusting, "GET", https("/v1/apps"), null, "Origin", CONSOLE);
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.headers().firstValue("access-control-allow-origin")).as("errors are readable by the console too").hasValue(CONSOLE);

    HttpResponse<String> evil = send(trusting, "GET", https("/v1/apps"), null, "Origin", "https://evil.example", "Authorization", "Bearer " + TestSupport.ADMIN);
    assertThat(evil.statusCode()).isEqualTo(200);
    assertThat(corsHeaders(evil)).isEmpty();
    assertThat(evil.headers().allValues("vary")).anySatisfy(v -> assertThat(v).containsIgnoringCase("origin"));

    HttpResponse<String> pre =
        send(trusting, "OPTIONS", https("/v1/apps/x/updates"), null, "Origin", CONSOLE, "Access-Control-Request-Method", "POST",
            "Access-Control-Request-Headers", "authorization,content-type");
    assertThat(pre.statusCode()).isEqualTo(204);
    assertThat(pre.headers().firstValue("access-control-allow-origin")).hasValue(CONSOLE);
    assertThat(pre.headers().firstValue("access-control-allow-headers").orElse("").toLowerCase(Locale.ROOT))
        .contains("authorization").contains("content-type");
    assertThat(pre.headers().firstValue("access-control-allow-methods").orElse("")).contains("POST").contains("PATCH");

    for (String origin : List.of("https://evil.example", "https://console.example.com.evil.example", "http://console.example.com", "null")) {
      HttpResponse<String> bad =
          send(trusting, "OPTIONS", https("/v1/apps"), null, "Origin", origin, "Access-Control-Request-Method", "POST");
      assertThat(bad.statusCode()).as(origin).isEqualTo(403);
      assertThat(Http.JSON.readTree(bad.body()).path("error").path("code").asText()).isEqualTo("cors-origin-not-allowed");
      assertThat(corsHeaders(bad)).as(origin).isEmpty();
    }
  }

  static Map<String, List<String>> corsHeaders(HttpResponse<?> r) {
    Map<String, List<String>> out = new java.util.TreeMap<>();
    r.headers().map().forEach((k, v) -> {
      if (k.toLowerCase(Locale.ROOT).startsWith("access-control-")) {
        out.put(k, v);
      }
    });
    return out;
  }

  @Test
  void oversizedHeadsUrlsAndBodiesGetA4xxJsonErrorAndTheServerKeepsAnswering() throws Exception {
    int port = plain.port();
    int tried = 0;
    int fiveHundreds = 0;
    String auth = "Authorization: Bearer " + TestSupport.ADMIN + "\r\n";
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("header of 40 KiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(40 * 1024) + "\r\n\r\n");
    cases.put("400 headers of 100 bytes", "GET /healthz HTTP/1.1\r\nHost: x\r\n" + ("X-Many: " + "b".repeat(90) + "\r\n").repeat(400) + "\r\n");
    cases.put("URL of 20 KiB", "GET /v1/apps?x=" + "c".repeat(20 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    cases.put("path of 9 KiB", "GET /assets/demo/" + "d".repeat(9 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    cases.put("JSON body declared 100 MB", "POST /v1/apps HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{\"appId\":");
    cases.put("JSON body of 70 KB", "POST /v1/apps HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 70016\r\n\r\n{\"appId\":\"" + "e".repeat(70_000) + "\"}    ");
    cases.put("chunked JSON body of 70 KB", "POST /v1/apps HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + Integer.toHexString(70_012) + "\r\n{\"appId\":\"" + "f".repeat(70_000) + "\"}\r\n0\r\n\r\n");
    cases.put("asset declared 1 GB", "PUT /v1/apps/demo/assets/" + "0".repeat(64) + " HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 1000000000\r\n\r\n");
    cases.put("chunked asset of 4 KiB", "PUT /v1/apps/demo/assets/" + "0".repeat(64) + " HTTP/1.1\r\nHost: x\r\n" + auth + "Transfer-Encoding: chunked\r\n\r\n"
        + "1000\r\n" + "g".repeat(4096) + "\r\n0\r\n\r\n");
    Map<String, Integer> expected =
        Map.of("header of 40 KiB", 431, "400 headers of 100 bytes", 431, "URL of 20 KiB", 414, "path of 9 KiB", 414, "JSON body declared 100 MB", 413,
            "JSON body of 70 KB", 413, "chunked JSON body of 70 KB", 413);
    // the asset routes need the app to exist to reach the size check
    assertThat(send(DEFAULT, "POST", http(plain, "/v1/apps"), "{\"appId\":\"demo\"}", "Authorization", "Bearer " + TestSupport.ADMIN, "Content-Type", "application/json").statusCode())
        .isIn(201, 409);
    for (Map.Entry<String, String> c : cases.entrySet()) {
      tried++;
      String answer = rawAnswer(port, c.getValue().getBytes(StandardCharsets.US_ASCII));
      int status = status(answer);
      if (status >= 500) {
        fiveHundreds++;
      }
      System.out.println("limits: " + c.getKey() + " -> HTTP " + status + " " + firstBodyLine(answer));
      assertThat(status).as(c.getKey() + ": " + abbreviate(answer)).isEqualTo(expected.getOrDefault(c.getKey(), 413));
      JsonNode err = Http.JSON.readTree(body(answer));
      assertThat(err.path("error").path("code").asText()).as(c.getKey()).isNotEmpty();
      assertThat(err.path("error").path("message").asText()).as(c.getKey()).containsAnyOf("limit", "above");
      assertThat(send(DEFAULT, "GET", http(plain, "/healthz"), null).statusCode()).as("still serving after " + c.getKey()).isEqualTo(200);
    }
    // the same bounds apply over TLS
    HttpResponse<String> bigHeader = send(trusting, "GET", https("/healthz"), null, "X-Big", "h".repeat(40 * 1024));
    assertThat(bigHeader.statusCode()).isEqualTo(431);
    assertThat(send(trusting, "GET", https("/healthz"), null).statusCode()).isEqualTo(200);
    System.out.println("limits: " + tried + " oversized requests on plain HTTP, 1 over TLS; 5xx seen: " + fiveHundreds);
    assertThat(fiveHundreds).isZero();
  }

  @Test
  void theAssetRouteNeverServesAFileOutsideTheStorageDirectory() throws Exception {
    Http admin = new Http(http(plain, ""), TestSupport.ADMIN);
    assertThat(admin.post("/v1/apps", Map.of("appId", "vault")).status()).isIn(201, 409);
    byte[] asset = "console.log('a stored asset');".getBytes(StandardCharsets.UTF_8);
    String sha = ExportFixture.sha256(asset);
    assertThat(admin.putBytes("/v1/apps/vault/assets/" + sha, asset, "application/javascript").status()).isIn(200, 201);
    assertThat(admin.get("/assets/vault/" + sha + ".js").body()).isEqualTo(asset); // the route works

    Path storage = plainDir.resolve("assets");
    String secret = "TOP-SECRET-" + java.util.UUID.randomUUID();
    Files.writeString(plainDir.resolve("secret.txt"), secret); // next to the storage directory
    Path outside = Files.createDirectories(plainDir.resolve("outside"));
    String linkSha = "1".repeat(64);
    Files.writeString(outside.resolve(linkSha), secret);
    Files.writeString(outside.resolve(linkSha + ".meta"), "00\n" + secret.length() + "\n");
    // a link planted inside the storage directory, to a file and to a directory outside it
    Files.createSymbolicLink(storage.resolve("vault").resolve(linkSha), plainDir.resolve("secret.txt"));
    Files.createSymbolicLink(storage.resolve("leak"), outside);

    List<String> targets =
        List.of(
            "/assets/vault/" + linkSha + ".js",
            "/assets/vault/" + linkSha,
            "/assets/leak/" + linkSha + ".js",
            "/assets/leak/" + linkSha,
            "/assets/vault/../../secret.txt",
            "/assets/../secret.txt",
            "/assets/vault/..%2f..%2fsecret.txt",
            "/assets/vault/..%2F..%2Fsecret.txt",
            "/assets/vault/%2e%2e/%2e%2e/secret.txt",
            "/assets/%2e%2e/secret.txt",
            "/assets/vault/%252e%252e%252f%252e%252e%252fsecret.txt",
            "/assets/vault/..\\..\\secret.txt",
            "/assets/vault/..%5c..%5csecret.txt",
            "/assets/vault/" + sha + "%00.js",
            "/assets/vault/secret.txt%00.js",
            "/assets/vault/%00",
            "/assets//etc/passwd",
            "/assets/vault//etc/passwd",
            "/assets/%2fetc%2fpasswd/x.js",
            "/assets/vault/%2fetc%2fpasswd",
            "/assets/vault/" + "a".repeat(4000) + ".js",
            "/assets/" + "v".repeat(4000) + "/" + sha + ".js",
            "/assets/vault/" + sha + "." + "x".repeat(300),
            "/assets/vault/" + sha.toUpperCase(Locale.ROOT) + ".js",
            "/assets/VAULT/" + sha + ".js",
            "/assets/vault/" + sha + ".js/..%2f..%2f..%2fsecret.txt");
    int fiveHundreds = 0;
    Map<Integer, Integer> statuses = new java.util.TreeMap<>();
    for (String t : targets) {
      String answer = rawAnswer(plain.port(), ("GET " + t + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      int status = status(answer);
      statuses.merge(status, 1, Integer::sum);
      if (status >= 500) {
        fiveHundreds++;
      }
      assertThat(answer).as(t).doesNotContain(secret);
      assertThat(status).as(t + ": " + abbreviate(answer)).isIn(400, 404);
      assertThat(answer.toLowerCase(Locale.ROOT)).as(t).contains("content-type: application/json");
      assertThat(Http.JSON.readTree(body(answer)).path("error").path("code").asText()).as(t).isNotEmpty();
    }
    System.out.println("asset route: " + targets.size() + " traversal, encoded, NUL, absolute, overlong and symlink addresses -> " + statuses
        + "; 5xx seen: " + fiveHundreds + "; secret bytes served: 0");
    assertThat(admin.get("/assets/vault/" + sha + ".js").body()).isEqualTo(asset); // still serving the real asset
  }

  @Test
  void anAssetUploadAskingFor100ContinueGetsItOnceAuthorizedAndARefusalOtherwise() throws Exception {
    // curl sends Expect: 100-continue with a body over 1 MiB and waits up to a second for the interim answer: the asset
    // route never sent one, so every such upload (a bundle) took a second longer
    Http admin = new Http(http(plain, ""), TestSupport.ADMIN);
    assertThat(admin.post("/v1/apps", Map.of("appId", "expect")).status()).isEqualTo(201);
    byte[] asset = "console.log('expect');".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String head = "PUT /v1/apps/expect/assets/" + ExportFixture.sha256(asset) + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/javascript\r\n"
        + "Content-Length: " + asset.length + "\r\nExpect: 100-continue\r\n";
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", plain.port())) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write((head + "Authorization: Bearer " + TestSupport.ADMIN + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      assertThat(responseHead(s.getInputStream())).as("the interim answer, before any body byte").startsWith("HTTP/1.1 100 Continue");
      s.getOutputStream().write(asset);
      assertThat(responseHead(s.getInputStream())).startsWith("HTTP/1.1 201");
    }
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", plain.port())) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write((head + "Authorization: Bearer updraft_not-a-token\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      assertThat(responseHead(s.getInputStream())).as("no body asked of a client that may not upload").startsWith("HTTP/1.1 401");
    }
  }

  /** One response head (status line and headers) read from {@code in}. */
  private static String responseHead(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    while (!b.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        break;
      }
      b.append((char) c);
    }
    return b.toString();
  }

  static String rawAnswer(int port, byte[] request) throws IOException {
    return RawExchange.answer(port, request);
  }

  static int status(String answer) {
    return RawExchange.status(answer);
  }

  static String body(String answer) {
    return RawExchange.body(answer);
  }

  static String firstBodyLine(String answer) {
    String b = body(answer);
    return b.length() > 160 ? b.substring(0, 160) + "..." : b;
  }

  static String abbreviate(String s) {
    return s.length() > 400 ? s.substring(0, 400) + "..." : s;
  }

}
