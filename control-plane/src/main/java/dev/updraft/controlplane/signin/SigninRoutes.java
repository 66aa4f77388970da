package dev.updraft.controlplane.signin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import io.vertx.core.Future;
import io.vertx.core.http.Cookie;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The sign-in routes: {@code GET /v1/auth/oidc/login} starts a sign-in (state, nonce and PKCE S256 challenge; the
 * state also goes into a short-lived cookie, so a callback is accepted only in the browser that started it) and
 * redirects to the provider; {@code GET /v1/auth/oidc/callback} checks state and cookie, trades the code (with the
 * verifier), checks the ID token ({@link IdTokens}), maps roles ({@link RoleMap}; nobody without a role gets a
 * session) and redirects to the console with the session cookie; {@code GET /v1/session} says who is signed in (and
 * whether sign-in with a provider is on); {@code DELETE /v1/session} signs out (the session ends on the server, the
 * cookie is cleared). Refusals are JSON errors through the API's failure handler.
 */
final class SigninRoutes {
  static final String LOGIN = "/v1/auth/oidc/login";
  static final String CALLBACK = "/v1/auth/oidc/callback";
  private static final String STATE_PATH = "/v1/auth/oidc";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Signin s;

  SigninRoutes(Signin s) {
    this.s = s;
  }

  void mount(Router router) {
    router.get(LOGIN).handler(this::login);
    router.get(CALLBACK).handler(this::callback);
    router.get("/v1/session").handler(this::session);
    router.delete("/v1/session").handler(this::signOut);
  }

  private void enabled() {
    if (!s.flags.enabled()) {
      throw new CommandException(404, "oidc-not-configured", "this control plane has no OIDC sign-in (--oidc-issuer); sign in with a token");
    }
  }

  private void login(RoutingContext rc) {
    enabled();
    s.provider.metadata().onComplete(ar -> finish(rc, ar.failed() ? ar.cause() : null, () -> {
      Provider.Metadata m = ar.result();
      Pending.Login l = new Pending.Login(Sessions.random(), Sessions.random(), s.clock.get());
      String state = s.pending.start(l, s.clock.get());
      String url = m.authorization() + (m.authorization().getRawQuery() == null ? "?" : "&") + "response_type=code"
          + "&client_id=" + enc(s.flags.clientId()) + "&redirect_uri=" + enc(s.redirectUri()) + "&scope=" + enc(s.flags.scopes())
          + "&state=" + state + "&nonce=" + l.nonce() + "&code_challenge=" + l.challenge() + "&code_challenge_method=S256";
      rc.response().addCookie(s.cookie(s.stateCookie, state, Pending.TTL.toSeconds(), STATE_PATH));
      rc.response().setStatusCode(302).putHeader("location", url).putHeader("cache-control", "no-store").end();
    }));
  }

  private void callback(RoutingContext rc) {
    enabled();
    String error = rc.request().getParam("error");
    if (error != null) {
      String d = rc.request().getParam("error_description");
      throw new CommandException(401, "oidc-sign-in-refused", "the provider refused the sign-in: " + Provider.clip(error)
          + (d == null ? "" : " (" + Provider.clip(d) + ")"));
    }
    String code = rc.request().getParam("code");
    String state = rc.request().getParam("state");
    if (state == null || state.isEmpty()) {
      throw CommandException.badRequest("missing-state", "the callback has no state parameter; start at " + LOGIN);
    }
    if (code == null || code.isEmpty()) {
      throw CommandException.badRequest("missing-code", "the callback has no code parameter; start at " + LOGIN);
    }
    Cookie bound = rc.request().getCookie(s.stateCookie);
    Pending.Login l = s.pending.take(state, s.clock.get());
    rc.response().addCookie(s.cookie(s.stateCookie, "", 0, STATE_PATH));
    if (l == null) {
      throw CommandException.badRequest("unknown-state", "this sign-in is unknown, already used or older than "
          + Pending.TTL.toMinutes() + " minutes; start again at " + LOGIN);
    }
    if (bound == null || !bound.getValue().equals(state)) {
      throw CommandException.badRequest("state-mismatch", "this sign-in was not started in this browser (its state cookie is missing or"
          + " differs); start again at " + LOGIN);
    }
    s.provider.metadata()
        .compose(m -> s.provider.idToken(m, code, l.verifier(), s.redirectUri())
            .compose(id -> verify(m, id, l.nonce(), false)))
        .onComplete(ar -> finish(rc, ar.failed() ? ar.cause() : null, () -> open(rc, ar.result())));
  }

  private Future<JWTClaimsSet> verify(Provider.Metadata m, String idToken, String nonce, boolean fresh) {
    return s.provider.keys(m, fresh).compose((JWKSet keys) -> {
      JWTClaimsSet c = IdTokens.check(idToken, keys, m.issuer(), s.flags.clientId(), nonce, s.clock.get());
      if (c != null) {
        return Future.succeededFuture(c);
      }
      if (fresh) {
        throw new CommandException(401, "id-token-invalid", "the provider's ID token is signed by a key its JWKS does not hold; sign in again");
      }
      return verify(m, idToken, nonce, true);
    });
  }

  private void open(RoutingContext rc, JWTClaimsSet c) {
    Object mail = c.getClaim("email");
    boolean unverified = Boolean.FALSE.equals(c.getClaim("email_verified"));
    String email = mail instanceof String && !unverified ? (String) mail : null;
    Object name = c.getClaim("name") != null ? c.getClaim("name") : c.getClaim("preferred_username");
    Map<String, Role> roles = s.flags.roles().grants(email, groups(c.getClaim(s.flags.groupsClaim())));
    String who = email != null ? email : c.getSubject();
    if (roles.isEmpty()) {
      throw new CommandException(403, "no-roles", who + " signed in, but --oidc-roles gives them no role on any app (their email"
          + (email == null ? " is absent or unverified" : "") + " and " + s.flags.groupsClaim() + " claim match no rule); ask an admin");
    }
    Instant now = s.clock.get();
    Person p = new Person(c.getSubject(), email, name instanceof String ? (String) name : null, roles, now.plus(s.flags.sessionMaxAge()));
    String secret = s.sessions.open(p, now);
    rc.response().addCookie(s.cookie(s.sessionCookie, secret, s.flags.sessionMaxAge().toSeconds(), "/"));
    rc.response().setStatusCode(302).putHeader("location", s.flags.redirectBaseUrl() + "/console/#/apps")
        .putHeader("cache-control", "no-store").end();
  }

  private static Collection<String> groups(Object claim) {
    List<String> out = new ArrayList<>();
    if (claim instanceof String) {
      out.add((String) claim);
    } else if (claim instanceof Collection) {
      for (Object o : (Collection<?>) claim) {
        out.add(String.valueOf(o));
      }
    }
    return out;
  }

  private void session(RoutingContext rc) {
    ObjectNode n = JSON.createObjectNode();
    Person p = null;
    if (s.flags.enabled()) {
      Cookie c = rc.request().getCookie(s.sessionCookie);
      p = c == null ? null : s.sessions.find(c.getValue(), s.clock.get());
    }
    n.put("signedIn", p != null);
    n.put("oidcEnabled", s.flags.enabled());
    if (s.flags.enabled()) {
      n.put("loginUrl", LOGIN);
    }
    if (p != null) {
      n.put("subject", p.subject());
      n.put("email", p.email());
      n.put("name", p.name());
      n.put("expiresAt", p.expiresAt().toString());
      ObjectNode roles = n.putObject("roles");
      p.roles().forEach((app, role) -> roles.put(app, role.wireName()));
    }
    rc.response().setStatusCode(200).putHeader("content-type", "application/json").putHeader("cache-control", "no-store").end(n.toString());
  }

  private void signOut(RoutingContext rc) {
    boolean closed = false;
    Cookie c = s.flags.enabled() ? rc.request().getCookie(s.sessionCookie) : null;
    if (c != null) {
      s.checkCsrf(rc);
      closed = s.sessions.close(c.getValue());
      rc.response().addCookie(s.cookie(s.sessionCookie, "", 0, "/"));
    }
    ObjectNode n = JSON.createObjectNode();
    n.put("signedOut", closed);
    rc.response().setStatusCode(200).putHeader("content-type", "application/json").putHeader("cache-control", "no-store").end(n.toString());
  }

  /** Runs {@code then} unless {@code failure}; any refusal either raises becomes the request's JSON error. */
  private static void finish(RoutingContext rc, Throwable failure, Runnable then) {
    if (failure != null) {
      rc.fail(unreachable(failure));
      return;
    }
    try {
      then.run();
    } catch (CommandException e) {
      rc.fail(e);
    }
  }

  private static Throwable unreachable(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    if (c instanceof CommandException) {
      return c;
    }
    return new CommandException(502, "oidc-provider-unreachable", "the OIDC provider could not be used: " + Provider.clip(String.valueOf(c.getMessage())));
  }

  private static String enc(String v) {
    return URLEncoder.encode(v, StandardCharsets.UTF_8);
  }
}
