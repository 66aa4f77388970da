package dev.updraft.controlplane.signin;

import dev.updraft.controlplane.core.CommandException;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Console sign-in with the OIDC provider of {@link OidcFlags}, and the sessions it opens: the API's authentication
 * asks {@link #person} for the person behind a request that carries no bearer token. The session cookie is
 * {@code HttpOnly}, {@code SameSite=Lax}, {@code Path=/}, {@code Secure} (and named with the {@code __Host-} prefix)
 * when the console is reached over https, and lives as long as the session ({@code --oidc-session-max-age}).
 *
 * <p>CSRF: a request that a session cookie authenticates and that may change state (any method but GET, HEAD and
 * OPTIONS) must carry the header {@value #CSRF_HEADER} (which the console sends and which a cross-site form cannot, and
 * a cross-site script cannot without a CORS preflight this API never allows), and an {@code Origin}, when present,
 * must be the console's own ({@code --oidc-redirect-base-url}); refused with 403 otherwise. SameSite=Lax keeps the
 * cookie off cross-site subrequests besides. Thread-safe.
 */
public final class Signin {
  /** The header a state-changing request authenticated by a session cookie must carry (any value). */
  public static final String CSRF_HEADER = "X-Updraft-Console";

  final OidcFlags flags;
  final Supplier<Instant> clock;
  final Sessions sessions = new Sessions();
  final Pending pending = new Pending();
  final Provider provider;
  final String sessionCookie;
  final String stateCookie;
  private final String origin;

  private Signin(Vertx vertx, OidcFlags flags, Supplier<Instant> clock) {
    this.flags = flags;
    this.clock = clock;
    this.provider = flags.enabled() ? new Provider(vertx, flags) : null;
    this.sessionCookie = flags.secureCookies() ? "__Host-updraft-session" : "updraft-session";
    this.stateCookie = flags.secureCookies() ? "__Secure-updraft-oidc-state" : "updraft-oidc-state";
    URI base = flags.enabled() ? URI.create(flags.redirectBaseUrl()) : null;
    this.origin = base == null ? null : base.getScheme() + "://" + base.getRawAuthority();
  }

  /** Sign-in as {@code flags} configure it (off: every route says so, {@link #person} is always null). */
  public static Signin create(Vertx vertx, OidcFlags flags, Supplier<Instant> clock) {
    return new Signin(vertx, flags, clock);
  }

  /** Adds {@code GET /v1/auth/oidc/login}, {@code GET /v1/auth/oidc/callback}, {@code GET} and {@code DELETE /v1/session}. */
  public void mount(Router router) {
    new SigninRoutes(this).mount(router);
  }

  /**
   * The person whose session cookie {@code rc} carries, or null without one (or with sign-in off). A cookie of no live
   * session is refused with 401 {@code session-expired}; a state-changing request without the CSRF header, or from
   * another origin, with 403.
   */
  public Person person(RoutingContext rc) {
    if (!flags.enabled()) {
      return null;
    }
    Cookie c = rc.request().getCookie(sessionCookie);
    if (c == null || c.getValue().isEmpty()) {
      return null;
    }
    Person p = sessions.find(c.getValue(), clock.get());
    if (p == null) {
      throw new CommandException(401, "session-expired", "your console session expired or was signed out; sign in again");
    }
    HttpMethod m = rc.request().method();
    if (m != HttpMethod.GET && m != HttpMethod.HEAD && m != HttpMethod.OPTIONS) {
      checkCsrf(rc);
    }
    return p;
  }

  void checkCsrf(RoutingContext rc) {
    if (rc.request().getHeader(CSRF_HEADER) == null) {
      throw new CommandException(403, "csrf-header-missing", "a request signed in by the console's session cookie that changes state"
          + " must carry the header " + CSRF_HEADER + " (the console sends it)");
    }
    String o = rc.request().getHeader("origin");
    if (o != null && !o.equals(origin)) {
      throw new CommandException(403, "origin-not-allowed", "origin '" + Provider.clip(o) + "' may not act with a console session;"
          + " only " + origin + " (--oidc-redirect-base-url)");
    }
  }

  Cookie cookie(String name, String value, long maxAgeSeconds, String path) {
    return Cookie.cookie(name, value).setHttpOnly(true).setSecure(flags.secureCookies()).setSameSite(CookieSameSite.LAX)
        .setPath(path).setMaxAge(maxAgeSeconds);
  }

  /** Where the provider sends the browser back to. */
  String redirectUri() {
    return flags.redirectBaseUrl() + SigninRoutes.CALLBACK;
  }

  /** How many sessions are open (for tests). */
  int sessionCount() {
    return sessions.size();
  }
}
