package dev.updraft.controlplane.signin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEObjectType;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.core.CommandException;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sign-in flow without a browser, against a real OIDC provider (mock-oauth2-server on loopback, issuing
 * RS256-signed ID tokens): code with PKCE, state bound to the browser, roles from the mapping file, sessions that
 * expire and end at sign-out, and the refusals of a tampered state, a foreign audience and an expired session.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // every request has a 20 s bound; this one catches a hang elsewhere
class SigninFlowIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CLIENT = "updraft-console";

  @TempDir Path dir;
  private MockOAuth2Server provider;
  private Vertx vertx;
  private String base;
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());
  private Signin signin;

  @BeforeEach
  void start() throws Exception {
    provider = new MockOAuth2Server();
    provider.start(InetAddress.getByName("127.0.0.1"), 0);
    vertx = Vertx.vertx();
    AtomicReference<Router> routes = new AtomicReference<>();
    HttpServer server = vertx.createHttpServer().requestHandler(req -> routes.get().handle(req)).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + server.actualPort();
    Path roles = Files.writeString(dir.resolve("roles"), "group:shop-devs shop publish\nemail:ops@example.com * read\n");
    ControlPlaneConfig config = ControlPlaneConfig.from(Settings.of(Map.of(
        "admin-token", "0123456789abcdef-admin", "data-dir", dir.toString(),
        "oidc-issuer", provider.issuerUrl("corp").toString(), "oidc-client-id", CLIENT, "oidc-roles", roles.toString(),
        "oidc-redirect-base-url", base, "oidc-session-max-age", "1h"), Map.of()));
    signin = Signin.create(vertx, config.oidc(), now::get);
    Router router = Router.router(vertx);
    signin.mount(router);
    // a protected route as the API's authentication uses it: the person of the session cookie, or a refusal
    router.route("/whoami").handler(rc -> {
      Person p = signin.person(rc);
      rc.response().end(p == null ? "nobody" : p.actor() + " shop=" + p.roleOn("shop") + " other=" + p.roleOn("other"));
    });
    router.route().failureHandler(rc -> {
      CommandException e = (CommandException) rc.failure();
      com.fasterxml.jackson.databind.node.ObjectNode n = JSON.createObjectNode();
      n.putObject("error").put("code", e.code()).put("message", e.getMessage());
      rc.response().setStatusCode(e.status()).putHeader("content-type", "application/json").end(n.toString());
    });
    routes.set(router);
  }

  @AfterEach
  void stop() {
    provider.shutdown();
    vertx.close();
  }

  private static HttpClient browser() {
    return HttpClient.newBuilder().cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  private static HttpResponse<String> send(HttpClient c, String method, String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      b.headers(headers);
    }
    return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String location(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(302);
    return r.headers().firstValue("location").orElseThrow();
  }

  /** Login at the console, then the provider's answer (non-interactive: it signs in whoever the next callback names). */
  private String toCallback(HttpClient c) throws Exception {
    String authorize = location(send(c, "GET", base + "/v1/auth/oidc/login"));
    assertThat(authorize).startsWith(provider.authorizationEndpointUrl("corp").toString())
        .contains("code_challenge_method=S256", "code_challenge=", "nonce=", "state=", "client_id=" + CLIENT);
    String callback = location(send(c, "GET", authorize));
    assertThat(callback).startsWith(base + "/v1/auth/oidc/callback?");
    return callback;
  }

  private void nextUser(String subject, List<String> audience, Map<String, Object> claims) {
    provider.enqueueCallback(new DefaultOAuth2TokenCallback("corp", subject, JOSEObjectType.JWT.getType(), audience, claims, 3600));
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  @Test
  void aMappedPersonSignsInActsWithTheirRolesAndSignsOut() throws Exception {
    HttpClient c = browser();
    nextUser("ana", List.of(CLIENT), Map.of("email", "ana@example.com", "groups", List.of("shop-devs")));
    assertThat(location(send(c, "GET", toCallback(c)))).isEqualTo(base + "/console/#/apps");

    assertThat(send(c, "GET", base + "/whoami").body()).isEqualTo("oidc:ana@example.com shop=PUBLISH other=null");
    JsonNode session = json(send(c, "GET", base + "/v1/session"));
    assertThat(session.path("signedIn").asBoolean()).isTrue();
    assertThat(session.path("roles").path("shop").asText()).isEqualTo("publish");

    HttpResponse<String> noHeader = send(c, "DELETE", base + "/v1/session");
    assertThat(noHeader.statusCode()).isEqualTo(403);
    assertThat(json(noHeader).path("error").path("code").asText()).isEqualTo("csrf-header-missing");
    HttpResponse<String> foreign = send(c, "POST", base + "/whoami", Signin.CSRF_HEADER, "1", "Origin", "https://evil.example");
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(json(foreign).path("error").path("code").asText()).isEqualTo("origin-not-allowed");

    HttpResponse<String> out = send(c, "DELETE", base + "/v1/session", Signin.CSRF_HEADER, "1");
    assertThat(json(out).path("signedOut").asBoolean()).isTrue();
    assertThat(out.headers().allValues("set-cookie")).anySatisfy(h -> assertThat(h).startsWith("updraft-session=;").contains("Max-Age=0"));
    assertThat(signin.sessionCount()).isZero();
  }

  @Test
  void aSessionCookieStopsWorkingAfterSignOutEvenIfTheBrowserKeepsIt() throws Exception {
    HttpClient c = browser();
    nextUser("ops", List.of(CLIENT), Map.of("email", "OPS@example.com"));
    HttpResponse<String> signedIn = send(c, "GET", toCallback(c));
    String cookie = signedIn.headers().allValues("set-cookie").stream().filter(h -> h.startsWith("updraft-session=")).findFirst().orElseThrow();
    assertThat(cookie).containsIgnoringCase("HttpOnly").contains("SameSite=Lax", "Path=/", "Max-Age=3600").doesNotContain("Secure");
    String value = cookie.substring(0, cookie.indexOf(';'));
    HttpClient other = HttpClient.newBuilder().build();
    assertThat(send(other, "GET", base + "/whoami", "Cookie", value).body()).isEqualTo("oidc:OPS@example.com shop=READ other=READ");
    send(c, "DELETE", base + "/v1/session", Signin.CSRF_HEADER, "1");
    HttpResponse<String> after = send(other, "GET", base + "/whoami", "Cookie", value);
    assertThat(after.statusCode()).isEqualTo(401);
    assertThat(json(after).path("error").path("code").asText()).isEqualTo("session-expired");
  }

  @Test
  void aSessionPastItsMaxAgeIsRefused() throws Exception {
    HttpClient c = browser();
    nextUser("ana", List.of(CLIENT), Map.of("groups", List.of("shop-devs")));
    send(c, "GET", toCallback(c));
    assertThat(send(c, "GET", base + "/whoami").statusCode()).isEqualTo(200);
    now.set(now.get().plus(Duration.ofHours(1)));
    HttpResponse<String> late = send(c, "GET", base + "/whoami");
    assertThat(late.statusCode()).isEqualTo(401);
    assertThat(json(late).path("error").path("code").asText()).isEqualTo("session-expired");
    assertThat(json(send(c, "GET", base + "/v1/session")).path("signedIn").asBoolean()).isFalse();
  }

  @Test
  void aTamperedOrForeignStateIsRefused() throws Exception {
    HttpClient c = browser();
    nextUser("ana", List.of(CLIENT), Map.of("groups", List.of("shop-devs")));
    String callback = toCallback(c);
    String state = callback.replaceAll(".*[?&]state=([^&]+).*", "$1");
    HttpResponse<String> tampered = send(c, "GET", callback.replace("state=" + state, "state=" + state.substring(1) + "x"));
    assertThat(tampered.statusCode()).isEqualTo(400);
    assertThat(json(tampered).path("error").path("code").asText()).isEqualTo("unknown-state");
    // the right state, but in another browser (a sign-in an attacker started, handed to a victim): no state cookie
    HttpResponse<String> foreign = send(browser(), "GET", callback);
    assertThat(foreign.statusCode()).isEqualTo(400);
    assertThat(json(foreign).path("error").path("code").asText()).isEqualTo("state-mismatch");
    // used once: the state is gone
    assertThat(json(send(c, "GET", callback)).path("error").path("code").asText()).isEqualTo("unknown-state");
    assertThat(signin.sessionCount()).isZero();
  }

  @Test
  void aPersonNoRuleMapsGetsNoSession() throws Exception {
    HttpClient c = browser();
    nextUser("bo", List.of(CLIENT), Map.of("email", "bo@example.com", "email_verified", true, "groups", List.of("sales")));
    HttpResponse<String> none = send(c, "GET", toCallback(c));
    assertThat(none.statusCode()).isEqualTo(403);
    assertThat(json(none).path("error").path("code").asText()).isEqualTo("no-roles");
    assertThat(signin.sessionCount()).isZero();
  }

  @Test
  void badCallbacksAreJsonErrorsNamingTheProblem() throws Exception {
    HttpClient c = browser();
    Map<String, String> cases = Map.of(
        "?state=abc", "missing-code",
        "?code=abc", "missing-state",
        "?error=access_denied&error_description=user+cancelled", "oidc-sign-in-refused");
    for (Map.Entry<String, String> e : cases.entrySet()) {
      HttpResponse<String> r = send(c, "GET", base + "/v1/auth/oidc/callback" + e.getKey());
      assertThat(r.statusCode()).as(e.getKey()).isBetween(400, 499);
      assertThat(json(r).path("error").path("code").asText()).as(e.getKey()).isEqualTo(e.getValue());
    }
  }

  @Test
  void anIdTokenForAnotherClientWithAnotherNonceOrAForgedSignatureIsRefused() throws Exception {
    String issuer = provider.issuerUrl("corp").toString();
    com.nimbusds.jose.jwk.JWKSet keys = com.nimbusds.jose.jwk.JWKSet.parse(send(HttpClient.newHttpClient(), "GET", provider.jwksUrl("corp").toString()).body());
    String token = provider.issueToken("corp", CLIENT, new DefaultOAuth2TokenCallback("corp", "ana", JOSEObjectType.JWT.getType(),
        List.of(CLIENT), Map.of("nonce", "n-1"), 3600)).serialize();
    assertThat(IdTokens.check(token, keys, issuer, CLIENT, "n-1", Instant.now()).getSubject()).isEqualTo("ana");
    assertThat(refusal(() -> IdTokens.check(token, keys, issuer, CLIENT, "n-2", Instant.now()))).contains("nonce");
    // the provider puts the client id of the request in the audience; a token it issued for another client
    String foreign = provider.issueToken("corp", "another-client", new DefaultOAuth2TokenCallback("corp", "ana", JOSEObjectType.JWT.getType(),
        List.of("another-client"), Map.of("nonce", "n-1"), 3600)).serialize();
    assertThat(refusal(() -> IdTokens.check(foreign, keys, issuer, CLIENT, "n-1", Instant.now()))).contains("audience");
    assertThat(refusal(() -> IdTokens.check(token, keys, issuer + "x", CLIENT, "n-1", Instant.now()))).contains("issuer");
    assertThat(refusal(() -> IdTokens.check(token, keys, issuer, CLIENT, "n-1", Instant.now().plus(Duration.ofHours(2))))).contains("expired");
    String[] parts = token.split("\\.");
    String forged = parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
        new String(java.util.Base64.getUrlDecoder().decode(parts[1])).replace("\"ana\"", "\"eve\"").getBytes()) + "." + parts[2];
    assertThat(refusal(() -> IdTokens.check(forged, keys, issuer, CLIENT, "n-1", Instant.now()))).contains("signature");
  }

  private static String refusal(Runnable r) {
    try {
      r.run();
    } catch (CommandException e) {
      assertThat(e.status()).isEqualTo(401);
      return e.getMessage();
    }
    throw new AssertionError("not refused");
  }
}
