package dev.updraft.controlplane.api;

import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.commands.Tokens;
import dev.updraft.controlplane.signin.Person;
import dev.updraft.controlplane.signin.Signin;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.TokenRef;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Handler;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Bearer-token authentication and authorization. A request without an {@code Authorization} header may instead be
 * a person's console session ({@link Signin#person}: roles per app from {@code --oidc-roles}, CSRF-checked). The
 * bootstrap admin token comes from configuration;
 * per-app tokens are looked up by the SHA-256 of the presented secret in the state's token index and
 * compared in constant time. 401 without a valid token, 403 for another app's token or a lower role,
 * 429 for an address that presented too many invalid tokens ({@link AuthThrottle}). An issued token past its
 * {@code expiresAt} (by the injected clock) is refused with 401 {@code token-expired} saying when; failures and refusals
 * are counted ({@code updraft_control_auth_failures_total}, {@code updraft_control_auth_throttled_total}).
 * Neither a token nor its hash is ever logged. Thread-safe.
 */
final class Auth {
  private final String adminSha256;
  private final Supplier<ControlState> state;
  private final AuthThrottle throttle;
  private final Counter failures;
  private final Counter throttled;
  private final Supplier<Instant> clock;
  private final Signin signin;

  Auth(String adminToken, Supplier<ControlState> state, AuthThrottle throttle, Counter failures, Counter throttled, Supplier<Instant> clock,
      Signin signin) {
    this.clock = clock;
    this.signin = signin;
    this.adminSha256 = Tokens.sha256Hex(adminToken);
    this.state = state;
    this.throttle = throttle;
    this.failures = failures;
    this.throttled = throttled;
  }

  /** The instant tokens are checked against (the control plane's clock). */
  Instant now() {
    return clock.get();
  }

  /** The address a request comes from (the TCP peer: a proxy in front should do its own limiting). */
  private static String source(RoutingContext rc) {
    SocketAddress a = rc.request().remoteAddress();
    return a == null || a.hostAddress() == null ? "unknown" : a.hostAddress();
  }

  /** The caller, or 401. */
  Principal authenticate(RoutingContext rc) {
    Principal cached = rc.get(Principal.KEY);
    if (cached != null) {
      return cached;
    }
    String h = rc.request().getHeader("authorization");
    if (h == null || h.isBlank()) {
      Person person = signin.person(rc);
      if (person != null) {
        Principal p = Principal.of(person);
        rc.put(Principal.KEY, p);
        return p;
      }
      throw new CommandException(
          401, "unauthorized", "missing token: send Authorization: Bearer <token> (the admin token, or one from `updraft tokens create`)");
    }
    String source = source(rc);
    long wait = throttle.retryAfterSeconds(source);
    if (wait > 0) {
      throttled.increment();
      rc.response().putHeader("retry-after", Long.toString(wait));
      throw new CommandException(
          429, "too-many-auth-failures", "too many invalid tokens from this address; retry after " + wait + " s");
    }
    String t = h.trim();
    if (t.length() < 7 || !t.substring(0, 7).equalsIgnoreCase("bearer ")) {
      fail(source);
      throw new CommandException(401, "unauthorized", "the Authorization header must be 'Bearer <token>'");
    }
    String token = t.substring(7).trim();
    Principal p;
    String sha = Tokens.sha256Hex(token);
    if (MessageDigest.isEqual(sha.getBytes(java.nio.charset.StandardCharsets.US_ASCII), adminSha256.getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
      p = new Principal(Commands.ACTOR_ADMIN, true, null, Role.ADMIN, null);
    } else {
      TokenRef ref = state.get().tokensBySha256().get(sha);
      if (ref == null || !Tokens.matches(token, sha) || Role.of(ref.role()) == null) {
        fail(source);
        throw new CommandException(401, "unauthorized", "invalid or revoked token");
      }
      if (ref.expiredAt(clock.get())) {
        fail(source);
        throw new CommandException(401, "token-expired", "token " + ref.tokenId() + " of app " + ref.appId() + " expired at "
            + ref.expiresAt() + "; an admin of the app can issue a new one (`updraft tokens create --expires-in 30d`)");
      }
      p = new Principal(ref.tokenId(), false, ref.appId(), Role.of(ref.role()), null);
    }
    rc.put(Principal.KEY, p);
    return p;
  }

  private void fail(String source) {
    failures.increment();
    throttle.failed(source);
  }

  /** A handler requiring {@code role} on the app in path parameter {@code app}. */
  Handler<RoutingContext> require(Role role) {
    return rc -> {
      check(rc, role);
      rc.next();
    };
  }

  /**
   * {@link #require(Role)}, then {@code body} (a body handler): a caller without a valid token gets its
   * 401 or 403 before any of its body is read. (Vert.x Web refuses a body handler after a user handler on
   * a route, so the check and the body handler are one handler here.)
   */
  Handler<RoutingContext> requireThenBody(Role role, Handler<RoutingContext> body) {
    return rc -> {
      check(rc, role);
      body.handle(rc);
    };
  }

  /** {@link #requireBootstrapAdmin()}, then {@code body}. */
  Handler<RoutingContext> requireBootstrapAdminThenBody(Handler<RoutingContext> body) {
    return rc -> {
      checkBootstrapAdmin(rc);
      body.handle(rc);
    };
  }

  private void check(RoutingContext rc, Role role) {
    Principal p = authenticate(rc);
    String app = rc.pathParam("app");
    if (app == null) {
      throw new IllegalStateException("authorize(role) used on a route without an :app parameter: " + rc.currentRoute().getPath());
    }
    Role has = p.roleOn(app);
    if (p.person() != null) {
      if (has == null || !has.allows(role)) {
        throw new CommandException(403, "forbidden", p.actor().substring(5) + (has == null ? " has no role on app " + app
            : " has role " + has.wireName() + " on app " + app) + "; this needs role " + role.wireName()
            + (role == Role.ADMIN ? "" : " or higher") + " (roles come from --oidc-roles)");
      }
      return;
    }
    if (has == null) {
      throw new CommandException(
          403, "forbidden", "this token belongs to app " + p.appId() + "; it cannot act on app " + app);
    }
    if (!p.role().allows(role)) {
      throw new CommandException(
          403, "forbidden", "this token has role " + p.role().wireName() + "; this needs role " + role.wireName()
              + (role == Role.ADMIN ? "" : " or admin"));
    }
  }

  /** A handler requiring the bootstrap admin token. */
  Handler<RoutingContext> requireBootstrapAdmin() {
    return rc -> {
      checkBootstrapAdmin(rc);
      rc.next();
    };
  }

  private void checkBootstrapAdmin(RoutingContext rc) {
    Principal p = authenticate(rc);
    if (!p.bootstrapAdmin()) {
      throw new CommandException(403, "forbidden", p.person() != null ? "only the control plane's admin token may do this, not a console"
          + " session" : "only the control plane's admin token may do this (app tokens act on their own app)");
    }
  }

  /** A handler requiring any valid token. */
  Handler<RoutingContext> requireAny() {
    return rc -> {
      authenticate(rc);
      rc.next();
    };
  }
}
