package dev.updraft.controlplane.signin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.JWKSet;
import dev.updraft.controlplane.core.CommandException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;

/**
 * The OIDC provider as this control plane talks to it, with Java's non-blocking HTTP client (never on an event
 * loop): its discovery document ({@code <issuer>/.well-known/openid-configuration}, whose {@code issuer} must be the
 * configured one), its JWKS (kept, fetched again when an ID token names a key it lacks, at most once a minute) and
 * its token endpoint (code for tokens, with the PKCE verifier; the client secret, when there is one, by HTTP Basic
 * unless the provider only takes it in the form). A failed discovery is tried again on the next sign-in. Thread-safe.
 */
final class Provider {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final long JWKS_REFRESH_NANOS = Duration.ofMinutes(1).toNanos();

  /** What discovery told. */
  record Metadata(String issuer, URI authorization, URI token, URI jwks, boolean secretInForm) {}

  private final Vertx vertx;
  private final OidcFlags flags;
  private final HttpClient http;
  private volatile CompletableFuture<Metadata> metadata;
  private volatile JWKSet keys;
  private volatile long keysFetchedAt;

  Provider(Vertx vertx, OidcFlags flags) {
    this.vertx = vertx;
    this.flags = flags;
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  Future<Metadata> metadata() {
    CompletableFuture<Metadata> m = metadata;
    if (m == null || m.isCompletedExceptionally()) {
      m = get(URI.create(flags.issuer() + "/.well-known/openid-configuration")).thenApply(this::parse);
      metadata = m;
    }
    return Future.fromCompletionStage(m, vertx.getOrCreateContext());
  }

  private Metadata parse(JsonNode d) {
    String issuer = d.path("issuer").asText("");
    if (!strip(issuer).equals(strip(flags.issuer()))) {
      throw new IllegalStateException("the provider's discovery document names issuer '" + issuer + "', not --oidc-issuer " + flags.issuer());
    }
    JsonNode methods = d.path("token_endpoint_auth_methods_supported");
    boolean form = methods.isArray() && !methods.toString().contains("\"client_secret_basic\"") && methods.toString().contains("\"client_secret_post\"");
    return new Metadata(issuer, uri(d, "authorization_endpoint"), uri(d, "token_endpoint"), uri(d, "jwks_uri"), form);
  }

  private static String strip(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static URI uri(JsonNode d, String field) {
    String v = d.path(field).asText(null);
    if (v == null) {
      throw new IllegalStateException("the provider's discovery document has no " + field);
    }
    return URI.create(v);
  }

  /** The provider's keys; {@code fresh} fetches them again unless that was done within the last minute. */
  Future<JWKSet> keys(Metadata m, boolean fresh) {
    JWKSet k = keys;
    if (k != null && (!fresh || System.nanoTime() - keysFetchedAt < JWKS_REFRESH_NANOS)) {
      return Future.succeededFuture(k);
    }
    CompletableFuture<JWKSet> f = get(m.jwks()).thenApply(n -> {
      try {
        JWKSet set = JWKSet.parse(n.toString());
        keys = set;
        keysFetchedAt = System.nanoTime();
        return set;
      } catch (ParseException e) {
        throw new IllegalStateException("the provider's JWKS at " + m.jwks() + " does not parse: " + e.getMessage(), e);
      }
    });
    return Future.fromCompletionStage(f, vertx.getOrCreateContext());
  }

  /** Trades {@code code} for the provider's tokens: the ID token, or a 502 naming the provider's error. */
  Future<String> idToken(Metadata m, String code, String verifier, String redirectUri) {
    Map<String, String> form = new java.util.LinkedHashMap<>();
    form.put("grant_type", "authorization_code");
    form.put("code", code);
    form.put("redirect_uri", redirectUri);
    form.put("client_id", flags.clientId());
    form.put("code_verifier", verifier);
    HttpRequest.Builder b = HttpRequest.newBuilder(m.token()).timeout(TIMEOUT)
        .header("content-type", "application/x-www-form-urlencoded").header("accept", "application/json");
    if (flags.clientSecret() != null) {
      if (m.secretInForm()) {
        form.put("client_secret", flags.clientSecret());
      } else {
        String basic = enc(flags.clientId()) + ":" + enc(flags.clientSecret());
        b.header("authorization", "Basic " + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
      }
    }
    StringJoiner body = new StringJoiner("&");
    form.forEach((k, v) -> body.add(k + "=" + enc(v)));
    CompletableFuture<String> f = http.sendAsync(b.POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
            HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> {
          JsonNode n = json(r.body());
          if (r.statusCode() != 200) {
            throw new CommandException(502, "oidc-token-exchange-failed", "the provider refused the sign-in code (HTTP " + r.statusCode()
                + (n.has("error") ? ", " + clip(n.path("error").asText()) : "") + "); sign in again");
          }
          String id = n.path("id_token").asText(null);
          if (id == null) {
            throw new CommandException(502, "oidc-no-id-token", "the provider's token answer has no id_token (is 'openid' in --oidc-scopes?)");
          }
          return id;
        });
    return Future.fromCompletionStage(f, vertx.getOrCreateContext());
  }

  private CompletableFuture<JsonNode> get(URI uri) {
    HttpRequest r = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("accept", "application/json").GET().build();
    return http.sendAsync(r, HttpResponse.BodyHandlers.ofString()).thenApply(res -> {
      if (res.statusCode() != 200) {
        throw new IllegalStateException("the OIDC provider answered HTTP " + res.statusCode() + " to GET " + uri);
      }
      return json(res.body());
    });
  }

  private static JsonNode json(String body) {
    try {
      return JSON.readTree(body == null || body.isEmpty() ? "{}" : body);
    } catch (IOException e) {
      return JSON.createObjectNode();
    }
  }

  static String clip(String s) {
    String v = s.replaceAll("[^\\x20-\\x7e]", "?");
    return v.length() > 200 ? v.substring(0, 200) + "..." : v;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
