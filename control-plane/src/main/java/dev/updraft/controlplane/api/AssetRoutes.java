package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Content-addressed assets: {@code POST /v1/apps/{app}/assets/missing} (which hashes storage lacks) and
 * {@code PUT /v1/apps/{app}/assets/{sha256}} ({@link AssetUpload}). Storage is read on worker threads.
 */
final class AssetRoutes {
  private final ApiContext ctx;

  AssetRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    PublisherApi.Deps d = ctx.deps;
    router.post("/v1/apps/:app/assets/missing").handler(ctx.auth.requireThenBody(Role.PUBLISH, body)).handler(this::missingAssets);
    router
        .put("/v1/apps/:app/assets/:sha256")
        .handler(ctx.auth.require(Role.PUBLISH))
        .handler(ctx::requireApp)
        .handler(new AssetUpload(ctx.vertx, d.storage(), d.tmpDir(), d.config().maxAssetBytes()));
  }

  private void missingAssets(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode b = Json.body(rc);
    List<String> shas = Json.strings(b, "sha256");
    if (shas == null) {
      throw CommandException.badRequest("missing-field", "sha256 (an array of lower-case hex SHA-256 values) is required");
    }
    if (shas.size() > 10_000) {
      throw CommandException.badRequest("invalid-field", "at most 10000 hashes per request: got " + shas.size());
    }
    Set<String> distinct = new LinkedHashSet<>();
    for (String s : shas) {
      if (!AssetUpload.SHA.matcher(s).matches()) {
        throw CommandException.badRequest("invalid-sha256", "not a lower-case hex SHA-256: '" + s + "'");
      }
      distinct.add(s);
    }
    ctx.vertx
        .executeBlocking(
            () -> {
              List<String> missing = new ArrayList<>();
              for (String s : distinct) {
                try {
                  if (ctx.deps.storage().stat(a.appId(), s) == null) {
                    missing.add(s);
                  }
                } catch (java.io.IOException e) {
                  throw AssetUpload.storageUnavailable("could not say whether sha256=" + s + " is stored", e);
                }
              }
              return missing;
            })
        .onComplete(
            ar -> {
              if (ar.failed()) {
                rc.fail(ar.cause());
                return;
              }
              ObjectNode n = Json.MAPPER.createObjectNode();
              ArrayNode m = n.putArray("missing");
              ar.result().forEach(m::add);
              Json.send(rc, 200, n);
            });
  }
}
