package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.commands.Requests.IssuedToken;
import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.TokenState;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;

/** Apps, their settings and their tokens (their keys: {@link KeyCommands}). Thread-safe. */
public final class AppCommands {
  private final Vertx vertx;
  private final CommandProcessor processor;
  private final KeyCommands keys;

  AppCommands(Vertx vertx, CommandProcessor processor, KeyCommands keys) {
    this.vertx = vertx;
    this.processor = processor;
    this.keys = keys;
  }

  /** Creates an app, optionally registering its signing key in the same transaction. */
  public Future<AppState> createApp(String actor, String appId, String displayName, KeyMaterial key) {
    return processor.submit(
        vertx,
        "create-app",
        (s, now) -> {
          Validate.appId(appId);
          String name = Validate.text("displayName", displayName, 200);
          if (s.app(appId) != null) {
            throw CommandException.conflict("app-exists", "app " + appId + " already exists");
          }
          List<NewEvent> events = new ArrayList<>();
          events.add(new NewEvent(appId, actor, new AppCreated(name == null ? appId : name)));
          if (key != null) {
            events.add(new NewEvent(appId, actor, keys.registration(appId, List.of(), List.of(), key, now)));
          }
          return Plan.of(events, st -> st.app(appId));
        })
        .onSuccess(a -> keys.expiry().refresh());
  }

  /**
   * Changes an app's settings: its default channel, the channel a device request without
   * {@code expo-channel-name} is answered for (null: none, such requests are refused).
   */
  public Future<AppState> updateApp(String actor, String appId, String defaultChannel) {
    return processor.submit(
        vertx,
        "update-app",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          String channel = defaultChannel == null ? null : Validate.channel(defaultChannel);
          if (Objects.equals(channel, app.defaultChannel())) {
            return Plan.nothing(app);
          }
          return Plan.of(List.of(new NewEvent(appId, actor, new AppUpdated(channel))), st -> st.app(appId));
        });
  }

  /**
   * Issues a token with a {@link Role} by its wire name; its secret is in the result only. It expires after
   * {@code expiresIn} (a duration such as {@code 30d}) or at {@code expiresAt} (ISO-8601), both nullable, at most
   * one given; neither: {@link TokenExpiry#DEFAULT} after issue.
   */
  public Future<IssuedToken> issueToken(String actor, String appId, String role, String label, String expiresIn, String expiresAt) {
    String secret = Tokens.newSecret();
    String tokenId = Tokens.newTokenId();
    return processor.submit(
        vertx,
        "issue-token",
        (s, now) -> {
          Prologue.app(s, appId);
          Role r = Role.of(role);
          if (r == null) {
            throw CommandException.badRequest("invalid-role", "role must be " + roleNames() + ": got '" + role + "'");
          }
          String l = Validate.text("label", label, 200);
          String expiry = TokenExpiry.resolve(expiresIn, expiresAt, now).toString();
          return Plan.of(
              List.of(new NewEvent(appId, actor, new TokenIssued(tokenId, r.wireName(), Tokens.sha256Hex(secret), l, expiry))),
              st -> new IssuedToken(st.app(appId).tokens().get(tokenId), secret));
        });
  }

  /** "read, publish or admin". */
  private static String roleNames() {
    Role[] all = Role.values();
    StringJoiner j = new StringJoiner(", ");
    for (int i = 0; i < all.length - 1; i++) {
      j.add(all[i].wireName());
    }
    return j + " or " + all[all.length - 1].wireName();
  }

  /** Revokes a token (revoking a revoked token changes nothing). */
  public Future<TokenState> revokeToken(String actor, String appId, String tokenId) {
    return processor.submit(
        vertx,
        "revoke-token",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          TokenState t = app.tokens().get(tokenId);
          if (t == null) {
            throw CommandException.notFound("token-not-found", "app " + appId + " has no token " + tokenId);
          }
          if (t.revoked()) {
            return Plan.nothing(t);
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, new TokenRevoked(tokenId))), st -> st.app(appId).tokens().get(tokenId));
        });
  }
}
