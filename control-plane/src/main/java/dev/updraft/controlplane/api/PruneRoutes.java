package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.commands.AssetPrune;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.Validate;
import dev.updraft.controlplane.storage.ListedAsset;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;

/**
 * {@code POST /v1/apps/{app}/assets/prune}: deletes (or, with {@code dryRun}, lists) the app's stored objects
 * that no remaining group references and that are older than {@code grace}. Also for a deleted app (the
 * bootstrap admin token), whose every object is garbage.
 */
final class PruneRoutes {
  /** The most objects an answer lists (the counts cover them all). */
  static final int LISTED = 1000;
  static final Duration DEFAULT_GRACE = Duration.ofDays(7);

  private final ApiContext ctx;

  PruneRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    router.post("/v1/apps/:app/assets/prune").handler(ctx.auth.requireThenBody(Role.ADMIN, body)).handler(this::prune);
  }

  private void prune(RoutingContext rc) {
    String app = Validate.appId(rc.pathParam("app"));
    ObjectNode b = rc.body().isEmpty() ? Json.MAPPER.createObjectNode() : Json.body(rc);
    boolean dryRun = Json.bool(b, "dryRun");
    String g = Json.string(b, "grace");
    Duration grace;
    try {
      grace = g == null ? DEFAULT_GRACE : Settings.parseDuration(g);
    } catch (IllegalArgumentException e) {
      throw CommandException.badRequest("invalid-grace", "grace must be a duration like 7d or 12h: got '" + g + "'");
    }
    AssetPrune prune = ctx.deps.commands().assets();
    AssetPrune.executor(ctx.vertx)
        .executeBlocking(() -> prune.prune(app, dryRun, grace))
        .onComplete(ar -> {
          if (ar.failed()) {
            rc.fail(ar.cause() instanceof java.io.IOException
                ? AssetUpload.storageUnavailable("could not prune the assets of app " + app, (java.io.IOException) ar.cause())
                : ar.cause());
          } else {
            Json.send(rc, 200, view(ar.result()));
          }
        });
  }

  static ObjectNode view(AssetPrune.Result r) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("appId", r.appId());
    n.put("dryRun", r.dryRun());
    n.put("graceSeconds", r.grace().toSeconds());
    n.put("scanned", r.scanned());
    n.put("referenced", r.referenced());
    n.put("young", r.young());
    n.put("count", r.deleted().size());
    n.put("bytes", r.bytes());
    ArrayNode objects = n.putArray("objects");
    for (ListedAsset a : r.deleted().subList(0, Math.min(LISTED, r.deleted().size()))) {
      objects.addObject().put("sha256", a.sha256Hex()).put("size", a.size()).put("storedAt", a.storedAt().toString());
    }
    return n;
  }
}
