package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.history.AuditEntry;
import dev.updraft.controlplane.state.AppState;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /v1/apps/{app}/audit}: the app's events newest first, a page at a time, read from the history
 * projection in PostgreSQL (the ingester writes it from the event log); 503 {@code history-unavailable}
 * while PostgreSQL cannot be used.
 */
final class AuditRoutes {
  private final ApiContext ctx;

  AuditRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router) {
    router.get("/v1/apps/:app/audit").handler(ctx.auth.require(Role.READ)).handler(this::audit);
  }

  private void audit(RoutingContext rc) {
    AppState a = ctx.app(rc);
    int limit = ApiContext.intParam(rc, "limit", 50, 1, 500);
    Long before = ApiContext.longParam(rc, "before");
    ctx.deps.history().audit(a.appId(), a.createdAt(), a.lastSequence(), before, limit).onComplete(ar -> {
      if (ar.failed()) {
        rc.fail(ar.cause());
        return;
      }
      ObjectNode n = Json.MAPPER.createObjectNode();
      ArrayNode items = n.putArray("items");
      for (AuditEntry e : ar.result().items()) {
        items.add(Views.audit(e));
      }
      if (ar.result().nextBefore() == null) {
        n.putNull("nextBefore");
      } else {
        n.put("nextBefore", ar.result().nextBefore());
      }
      Json.send(rc, 200, n);
    });
  }
}
