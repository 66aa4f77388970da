package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.controlplane.keyuse.KeyAskReads;
import dev.updraft.controlplane.keyuse.KeyAskReads.Usage;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.function.Function;

/**
 * Keys in use: {@code DELETE /v1/apps/{app}/keys/{keyId}} is refused with 409 {@code key-in-use} (naming the keyid,
 * when a device last asked for it and how many did) while devices asked for the keyid within
 * {@code --key-in-use-days}, unless the request says {@code ?force=true}, and with 503 {@code key-use-unknown} when
 * the telemetry database cannot be used to tell (unless forced); a forced retirement records {@code forced} and what
 * it overrode in its event (so in the audit). {@code GET /v1/apps/{app}/key-usage} lists the asks per key (the
 * console's key ring); when the telemetry database cannot be used it answers 200 with {@code known: false} and
 * {@code reason: telemetry-database-unavailable} (not knowing is an answer, not a server fault). Event loop.
 */
final class KeyInUse {
  private final ApiContext ctx;
  private KeyAskReads reads;

  KeyInUse(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router) {
    router.get("/v1/apps/:app/key-usage").handler(ctx.auth.require(Role.READ)).handler(this::usage);
  }

  /** Built on first use: the API is also built without its dependencies (route listings in tests). */
  private KeyAskReads reads() {
    if (reads == null) {
      reads = new KeyAskReads(() -> ctx.deps.history().db(), ctx.deps.config().keys().keyInUseWindow(),
          () -> ctx.deps.processor().clock().instant());
    }
    return reads;
  }

  /** {@code ?force=}: absent or {@code false} is not forced, {@code true} is; anything else 400. */
  static boolean force(RoutingContext rc) {
    String v = rc.queryParams().get("force");
    if (v == null || v.isEmpty() || "false".equals(v)) {
      return false;
    }
    if ("true".equals(v)) {
      return true;
    }
    throw CommandException.badRequest("invalid-parameter", "force must be true or false: got '" + v + "'");
  }

  /**
   * The retirement of {@code keyId} to append, or a failed future: the refusal when devices asked for it within the
   * window (or the database cannot tell) and {@code force} is false. A keyid the app lacks, or its last key, goes
   * through unread: the command refuses those itself.
   */
  Future<SigningKeyRetired> check(AppState app, String keyId, boolean force) {
    if (app.key(keyId) == null || app.keys().size() <= 1) {
      return Future.succeededFuture(new SigningKeyRetired(keyId, null, null, null));
    }
    KeyAskReads r = reads();
    return r.usage(app.appId(), app.createdAt()).transform(ar -> {
      if (ar.failed()) {
        if (!TelemetryDb.isOutage(ar.cause())) {
          return Future.failedFuture(ar.cause());
        }
        if (force) {
          return Future.succeededFuture(new SigningKeyRetired(keyId, true, null, null));
        }
        return Future.failedFuture(new CommandException(503, "key-use-unknown", "cannot tell whether devices still ask for keyid "
            + keyId + " of app " + app.appId() + ": the telemetry database (" + r.where() + ", --postgres-url) cannot be used now: "
            + TelemetryDb.describe(ar.cause()) + "; retry when it is back, or retire it anyway with ?force=true"
            + " (updraft keys retire --force)"));
      }
      Usage u = ar.result().get(keyId);
      if (force) {
        return Future.succeededFuture(
            new SigningKeyRetired(keyId, true, u == null ? 0L : u.devices(), u == null ? null : u.lastAsked().toString()));
      }
      if (u != null) {
        return Future.failedFuture(new InUse(app.appId(), u, r.windowDays()));
      }
      return Future.succeededFuture(new SigningKeyRetired(keyId, null, null, null));
    });
  }

  /** Answers {@code status} with {@code view} of {@code f}'s result; a key in use as 409 with its numbers. */
  static <T> void reply(RoutingContext rc, Future<T> f, Function<T, JsonNode> view) {
    f.onComplete(ar -> {
      if (ar.succeeded()) {
        Json.send(rc, 200, view.apply(ar.result()));
      } else if (ar.cause() instanceof InUse) {
        InUse e = (InUse) ar.cause();
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode err = root.putObject("error");
        err.put("code", "key-in-use");
        err.put("message", e.getMessage());
        err.put("keyId", e.usage.keyId());
        err.put("lastAskedAt", e.usage.lastAsked().toString());
        err.put("devices", e.usage.devices());
        err.put("windowDays", e.windowDays);
        Json.send(rc, 409, root);
      } else {
        rc.fail(ar.cause());
      }
    });
  }

  private void usage(RoutingContext rc) {
    AppState app = ctx.app(rc);
    KeyAskReads r = reads();
    r.usage(app.appId(), app.createdAt()).onComplete(ar -> {
      if (ar.failed()) {
        if (!TelemetryDb.isOutage(ar.cause())) {
          rc.fail(ar.cause());
          return;
        }
        // the answer is "we cannot tell", a value, not a server error: the console and CLI show it as unknown
        Json.send(rc, 200, unknown(app, r.windowDays(), "the telemetry database (" + r.where()
            + ", --postgres-url) cannot be used now: " + TelemetryDb.describe(ar.cause()) + "; retry later"));
        return;
      }
      Json.send(rc, 200, view(app, ar.result(), r.windowDays()));
    });
  }

  /** The key ring with no numbers: {@code known} false and why ({@code reason}, {@code message}). */
  private static ObjectNode unknown(AppState app, long windowDays, String message) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("known", false);
    n.put("reason", "telemetry-database-unavailable");
    n.put("message", message);
    n.put("windowDays", windowDays);
    ArrayNode items = n.putArray("items");
    for (SigningState k : app.keys()) {
      ObjectNode i = items.addObject();
      i.put("keyId", k.keyId());
      i.putNull("devices");
      i.putNull("lastAskedAt");
    }
    return n;
  }

  private static ObjectNode view(AppState app, Map<String, Usage> asks, long windowDays) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("known", true);
    n.put("windowDays", windowDays);
    ArrayNode items = n.putArray("items");
    for (SigningState k : app.keys()) {
      ObjectNode i = items.addObject();
      Usage u = asks.get(k.keyId());
      i.put("keyId", k.keyId());
      i.put("devices", u == null ? 0 : u.devices());
      if (u != null) {
        i.put("lastAskedAt", u.lastAsked().toString());
      } else {
        i.putNull("lastAskedAt");
      }
    }
    return n;
  }

  /** Devices asked for the key within the window and the request did not say force. */
  private static final class InUse extends RuntimeException {
    final Usage usage;
    final long windowDays;

    InUse(String appId, Usage usage, long windowDays) {
      super("keyid " + usage.keyId() + " of app " + appId + " is in use: " + usage.devices() + " device(s) asked for it in the last "
          + windowDays + " days, last at " + usage.lastAsked() + " (to the hour); builds embedding its certificate would be refused"
          + " every update once it is retired. Wait until they moved to a build with another key, or retire it anyway with"
          + " ?force=true (updraft keys retire --force)", null, false, false);
      this.usage = usage;
      this.windowDays = windowDays;
    }
  }
}
