package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.systemtests.reliability.Api;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Metrics;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Every operation of the OpenAPI document the control plane serves ({@code GET /v1/openapi.yaml}, which
 * OpenApiRoutesTest proves equal to the routes it has), called on a real control plane with the insights
 * extension mounted (as {@code updraft control-plane} runs it) and two apps, each with a token of every role:
 * without a token, with a made-up token and with a revoked one it is 401 with a JSON error; with any token
 * of the other app it is 403; with a token of the app whose role is below the one the spec names it is
 * 403; and none of those refused calls changes anything, although their bodies are valid commands. The
 * operations that need no token are exactly the ones the spec marks {@code security: []}, and those are
 * exactly a set this test lists, so a route added without authentication fails here.
 */
@ExtendWith(RealInfrastructure.class)
class OpenApiAuthIT {
  static final String A = "alpha";
  static final String B = "bravo";
  static final List<String> ROLES = List.of("read", "publish", "admin");

  /**
   * The operations that are public by design: the console, health, metrics, the spec, local asset bytes. Metrics only
   * unless configured: {@code --metrics-token} guards them and {@code --metrics-port} moves them off the control port
   * ({@code MetricsAccessIT} in control-plane); this test runs the defaults.
   */
  static final Set<String> PUBLIC = Set.of("GET /", "GET /console", "GET /console/", "GET /console/{file}", "GET /healthz",
      "GET /metrics", "GET /v1/openapi.yaml", "GET /assets/{app}/{file}", "HEAD /assets/{app}/{file}",
      "GET /v1/auth/oidc/login", "GET /v1/auth/oidc/callback", "GET /v1/session", "DELETE /v1/session");
  /**
   * Of {@link #PUBLIC}, the console's sign-in with an OIDC provider: they take no token because a person signs in at
   * the provider and then carries the session cookie ({@code SigninFlowIT}); without a session they give nobody's data.
   */
  static final Set<String> SIGN_IN = Set.of("GET /v1/auth/oidc/login", "GET /v1/auth/oidc/callback", "GET /v1/session",
      "DELETE /v1/session");
  /** The token-protected operations not under one app. */
  static final Set<String> GLOBAL = Set.of("GET /v1/apps", "POST /v1/apps");

  private static final Pattern ROLE = Pattern.compile("\\(role (read|publish|admin)\\)");

  /** One operation of the spec. */
  record Op(String method, String path, boolean isPublic, String role, boolean hasBody) {
    String key() {
      return method + " " + path;
    }
  }

  @Test
  void everyOperationRefusesMissingForeignAndInsufficientTokens(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    String pg = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());
    // the throttle would turn the many invalid tokens below into 429s: off here (TokenSecurityIT tests it)
    ControlPlane cp = Services.controlPlaneWithInsights(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir, pg,
        "auth-failure-limit", "0");
    try {
      String base = "http://127.0.0.1:" + cp.port();
      String groupId = Publishing.appWithUpdate(base, A, true, "main").path("groupId").asText();
      Publishing.appWithUpdate(base, B, false, "main");
      Map<String, String> tokenA = new LinkedHashMap<>();
      Map<String, String> tokenB = new LinkedHashMap<>();
      for (String role : ROLES) {
        tokenA.put(role, issue(base, A, role).path("token").asText());
        tokenB.put(role, issue(base, B, role).path("token").asText());
      }
      JsonNode victim = issue(base, A, "read");
      String victimToken = victim.path("token").asText();
      JsonNode revoked = issue(base, A, "admin");
      assertThat(Api.send("DELETE", base + "/v1/apps/" + A + "/tokens/" + revoked.path("tokenId").asText(), Services.ADMIN, null, Map.of())
          .status()).isEqualTo(200);
      String revokedToken = revoked.path("token").asText();
      String sha = sha256Hex(firstFile(Fixtures.update1()));

      Api.Resp specResp = Api.get(base + "/v1/openapi.yaml", null);
      assertThat(specResp.status()).isEqualTo(200);
      List<Op> ops = operations(specResp.text());

      // public by design: exactly the listed set, each answering without a token
      Set<String> publicOps = new TreeSet<>();
      ops.stream().filter(Op::isPublic).forEach(o -> publicOps.add(o.key()));
      assertThat(publicOps).as("operations the spec marks security: [] (a new one must be added here on purpose)")
          .containsExactlyInAnyOrderElementsOf(PUBLIC);
      for (Op o : ops) {
        if (o.isPublic()) {
          Api.Resp r = Api.send(o.method(), base + fill(o.path(), groupId, victim.path("tokenId").asText(), sha), null, null, Map.of());
          if (SIGN_IN.contains(o.key())) {
            assertThat(r.status()).as("%s without a session (no OIDC configured here): %s", o.key(), r).isIn(200, 204, 400, 401, 404);
            assertThat(r.text()).as("%s without a session", o.key()).doesNotContain("\"email\"");
            if (r.status() == 200) {
              assertThat(r.text()).as("%s without a session", o.key()).containsAnyOf("\"signedIn\":false", "\"signedOut\":false");
            }
          } else {
            assertThat(r.status()).as("%s without a token: %s", o.key(), r).isBetween(200, 399);
          }
        }
      }

      // every other operation: under /v1/apps/{app} with a role named in its summary, or one of the two global ones
      List<Op> protectedOps = ops.stream().filter(o -> !o.isPublic()).toList();
      for (Op o : protectedOps) {
        if (!GLOBAL.contains(o.key())) {
          assertThat(o.path()).as(o.key()).startsWith("/v1/apps/{app}");
          assertThat(o.role()).as("%s: its summary must say which role it needs, as (role read|publish|admin)", o.key()).isNotNull();
        }
      }
      assertThat(protectedOps).as("operations needing a token").hasSizeGreaterThanOrEqualTo(24);
      assertThat(protectedOps).extracting(Op::key).containsAll(GLOBAL).contains(
          "GET /v1/apps/{app}/insights/updates/{groupId}", "GET /v1/apps/{app}/devices/{clientId}", "DELETE /v1/apps/{app}/tokens/{tokenId}");

      String metricsBefore = Metrics.scrape(base + "/metrics");
      double appendedBefore = Metrics.value(metricsBefore, "updraft_control_events_appended_total");
      int refused = 0;
      for (Op o : protectedOps) {
        String url = base + fill(o.path(), groupId, victim.path("tokenId").asText(), sha);
        String body = o.hasBody() ? body(o, sha) : null;
        Map<String, String> none = Map.of();
        for (String token : new String[] {null, "updraft_" + "x".repeat(43), revokedToken, "not-even-a-token"}) {
          Api.Resp r = Api.send(o.method(), url, token, body, none);
          assertThat(r.status()).as("%s with token %s: %s", o.key(), token == null ? "none" : token.substring(0, 8) + "…", r).isEqualTo(401);
          assertThat(r.errorCode()).as("%s: a JSON error body", o.key()).isEqualTo("unauthorized");
          assertThat(r.header("content-type")).startsWith("application/json");
          refused++;
        }
        if (o.key().equals("POST /v1/apps")) {
          for (String role : ROLES) {
            Api.Resp r = Api.send(o.method(), url, tokenA.get(role), body, none);
            assertThat(r.status()).as("an app token (%s) creating an app: %s", role, r).isEqualTo(403);
            assertThat(r.errorCode()).isEqualTo("forbidden");
            refused++;
          }
          continue;
        }
        if (o.key().equals("GET /v1/apps")) {
          continue; // asserted below: an app token sees its own app only
        }
        for (String role : ROLES) {
          Api.Resp r = Api.send(o.method(), url, tokenB.get(role), body, none);
          assertThat(r.status()).as("%s with app %s's %s token: %s", o.key(), B, role, r).isEqualTo(403);
          assertThat(r.errorCode()).isEqualTo("forbidden");
          assertThat(r.json().path("error").path("message").asText()).contains(B);
          refused++;
        }
        for (String role : ROLES.subList(0, ROLES.indexOf(o.role()))) {
          Api.Resp r = Api.send(o.method(), url, tokenA.get(role), body, none);
          assertThat(r.status()).as("%s (role %s) with a %s token of the app: %s", o.key(), o.role(), role, r).isEqualTo(403);
          assertThat(r.errorCode()).isEqualTo("forbidden");
          assertThat(r.json().path("error").path("message").asText()).contains("needs role " + o.role());
          refused++;
        }
      }
      // a refused command changes nothing: no event appended, the token to revoke still works
      String metricsAfter = Metrics.scrape(base + "/metrics");
      assertThat(Metrics.value(metricsAfter, "updraft_control_events_appended_total")).as("events appended by refused calls")
          .isEqualTo(appendedBefore);
      assertThat(Api.get(base + "/v1/apps/" + A, victimToken).status()).isEqualTo(200);
      assertThat(Api.get(base + "/v1/apps/" + "intruder", Services.ADMIN).status()).isEqualTo(404);

      // an app token lists its own app only; the admin token every app
      for (String role : ROLES) {
        assertThat(appIds(Api.get(base + "/v1/apps", tokenA.get(role)))).containsExactly(A);
        assertThat(appIds(Api.get(base + "/v1/apps", tokenB.get(role)))).containsExactly(B);
      }
      assertThat(appIds(Api.get(base + "/v1/apps", Services.ADMIN))).contains(A, B);

      // and the route is really there for a token with the role it needs (whatever the body makes of it)
      int allowed = 0;
      // deletes last (they take away what the others name), the app's own delete very last
      List<Op> inOrder = new ArrayList<>(protectedOps);
      inOrder.sort(java.util.Comparator.comparingInt(o -> !o.method().equals("DELETE") ? 0 : o.path().equals("/v1/apps/{app}") ? 2 : 1));
      for (Op o : inOrder) {
        String url = base + fill(o.path(), groupId, victim.path("tokenId").asText(), sha);
        String token = GLOBAL.contains(o.key()) ? Services.ADMIN : tokenA.get(o.role());
        Api.Resp r = Api.send(o.method(), url, token, o.hasBody() ? body(o, sha) : null, Map.of());
        assertThat(r.status()).as("%s with the role it needs: %s", o.key(), r).isNotIn(401, 403, 405, -1);
        if (r.status() == 404 && o.method().equals("DELETE")) {
          // a delete may find its thing gone (an earlier delete took it); the route and the app are there
          assertThat(r.errorCode()).as("%s: the route and the app exist: %s", o.key(), r).isNotIn("not-found", "app-not-found").endsWith("-not-found");
        } else if (r.status() == 404) {
          assertThat(r.errorCode()).as("%s: only the device is unknown, not the route or the app: %s", o.key(), r).isEqualTo("device-not-found");
        }
        if (r.status() >= 500) {
          // insights answer 503 until the ingester has made its tables; nothing else may fail
          assertThat(o.path()).as("%s: %s", o.key(), r).containsAnyOf("/insights/", "/devices/");
          assertThat(r.errorCode()).isEqualTo("insights-unavailable");
        }
        allowed++;
      }
      assertThat(Api.get(base + "/v1/apps/" + A, victimToken).status()).as("revoked by its app's admin token").isEqualTo(401);
      System.out.printf("openapi auth: %d operations in the spec, %d public (%s); %d refused calls (401 without/invalid/revoked token,"
          + " 403 for the other app or a lower role) appended 0 events; %d calls with the needed role got through%n",
          ops.size(), publicOps.size(), publicOps, refused, allowed);
    } finally {
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  /**
   * Every token-protected operation, asked without a token in a request whose head announces an 8 MiB body
   * that never follows: the answer is 401 with a JSON error, sent while the body is still missing, so no
   * route waits for (or buffers) a stranger's body before it has checked the caller.
   */
  @Test
  void everyOperationRefusesAnAnonymousCallerBeforeReadingItsBody(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    String pg = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());
    ControlPlane cp = Services.controlPlaneWithInsights(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir, pg,
        "auth-failure-limit", "0");
    try {
      String base = "http://127.0.0.1:" + cp.port();
      List<Op> ops = operations(Api.get(base + "/v1/openapi.yaml", null).text());
      int checked = 0;
      for (Op o : ops) {
        if (o.isPublic()) {
          continue;
        }
        String path = fill(o.path(), "0b5c7a2e-52f4-4e4b-9a57-8d1a4cf5a1b2", "tok_0000", "0".repeat(64));
        String answer = headWithoutBody(cp.port(), o.method(), path, 8 * 1024 * 1024);
        assertThat(answer).as("%s announcing 8 MiB and sending none of it", o.key()).startsWith("HTTP/1.1 401 ");
        assertThat(answer).as("%s: a JSON error", o.key()).containsIgnoringCase("content-type: application/json")
            .contains("\"unauthorized\"");
        checked++;
      }
      assertThat(checked).as("protected operations checked").isGreaterThanOrEqualTo(24);
      System.out.printf("auth before body: %d protected operations answered 401 to an anonymous head announcing 8 MiB, before any body byte%n", checked);
    } finally {
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  /**
   * Sends a request head announcing {@code length} body bytes, sends none of them, and returns what the server
   * answers meanwhile (its head and as much of its body as arrives). A server waiting for the body answers
   * nothing: the read times out after 10 s (the control plane's idle timeout is 60 s) and the test fails there.
   */
  private static String headWithoutBody(int port, String method, String path, int length) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + length + "\r\n\r\n";
      s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      StringBuilder got = new StringBuilder();
      byte[] buf = new byte[4096];
      try {
        int n;
        // the head and a short JSON error: stop once the error code has arrived
        while (got.indexOf("\"unauthorized\"") < 0 && (n = in.read(buf)) > 0) {
          got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        }
      } catch (SocketTimeoutException e) {
        return got.length() == 0 ? "no answer within 10 s while the body was missing" : got.toString();
      }
      return got.toString();
    }
  }

  private static JsonNode issue(String base, String app, String role) {
    Api.Resp r = Api.post(base + "/v1/apps/" + app + "/tokens", Services.ADMIN, "{\"role\":\"" + role + "\",\"label\":\"auth-" + role + "\"}");
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json();
  }

  private static List<String> appIds(Api.Resp r) {
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    r.json().path("items").forEach(i -> ids.add(i.path("appId").asText()));
    return ids;
  }

  /** The spec's operations, each public or not from its {@code security} (or the document's). */
  @SuppressWarnings("unchecked")
  static List<Op> operations(String yaml) {
    Map<String, Object> doc = new Yaml().load(yaml);
    List<?> topSecurity = (List<?>) doc.get("security");
    assertThat(topSecurity).as("the document requires the bearer token by default").isNotEmpty();
    List<Op> ops = new ArrayList<>();
    for (Map.Entry<String, Object> p : ((Map<String, Object>) doc.get("paths")).entrySet()) {
      for (Map.Entry<String, Object> m : ((Map<String, Object>) p.getValue()).entrySet()) {
        if (m.getKey().equals("parameters")) {
          continue;
        }
        Map<String, Object> op = (Map<String, Object>) m.getValue();
        List<?> security = op.containsKey("security") ? (List<?>) op.get("security") : topSecurity;
        Matcher role = ROLE.matcher(String.valueOf(op.get("summary")));
        ops.add(new Op(m.getKey().toUpperCase(Locale.ROOT), p.getKey(), security.isEmpty(), role.find() ? role.group(1) : null,
            op.containsKey("requestBody")));
      }
    }
    return ops;
  }

  /** {@code path} with app A's values: its group, a token of its, channel main, an uploaded file. */
  private static String fill(String path, String groupId, String tokenId, String sha) {
    return path.replace("{app}", A).replace("{groupId}", groupId).replace("{tokenId}", tokenId).replace("{channel}", "main")
        .replace("{sha256}", sha).replace("{file}", path.startsWith("/console/") ? "app.js" : sha + ".js")
        .replace("{clientId}", "0b5c7a2e-52f4-4e4b-9a57-8d1a4cf5a1b2").replace("{runtimeVersion}", "1.0.0").replace("{keyId}", "main")
        .replace("{branch}", "main");
  }

  /** A body that would change something if the call were let in. */
  private static String body(Op o, String sha) throws Exception {
    switch (o.key()) {
      case "POST /v1/apps":
        return "{\"appId\":\"intruder\"}";
      case "PUT /v1/apps/{app}/signing-key":
        return CliRun.JSON.writeValueAsString(Map.of("certificatePem", Files.readString(Fixtures.certificatePem()),
            "privateKeyPem", Files.readString(Fixtures.privateKeyPkcs8Pem()), "keyId", "intruder"));
      case "POST /v1/apps/{app}/tokens":
        return "{\"role\":\"admin\",\"label\":\"intruder\"}";
      case "POST /v1/apps/{app}/assets/missing":
        return "{\"sha256\":[\"" + sha + "\"]}";
      case "POST /v1/apps/{app}/rollbacks":
        return "{\"branch\":\"main\",\"runtimeVersion\":\"1.0.0\",\"embedded\":true}";
      case "PUT /v1/apps/{app}/channels/{channel}":
        return "{\"branch\":\"intruder\"}";
      case "PATCH /v1/apps/{app}/updates/{groupId}/rollout":
        return "{\"percentage\":100}";
      case "POST /v1/apps/{app}/builds":
        return "{\"platform\":\"ios\",\"runtimeVersion\":\"1.0.0\",\"embeddedUpdateId\":\"0b5c7a2e-52f4-4e4b-9a57-8d1a4cf5a1b2\",\"bundleSha256\":\"" + sha + "\"}";
      default:
        return "{}";
    }
  }

  private static Path firstFile(Path root) throws Exception {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).filter(f -> f.toString().contains("assets")).sorted().findFirst().orElseThrow();
    }
  }

  private static String sha256Hex(Path f) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
  }
}
