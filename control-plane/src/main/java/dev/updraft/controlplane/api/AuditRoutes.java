package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.Role;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.AuditEntry;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/** {@code GET /v1/apps/{app}/audit}: the app's events newest first, a page at a time. */
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
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    List<AuditEntry> all = a.audit();
    Long next = null;
    // entries are in sequence order: start below the cursor instead of walking down to it
    for (int i = before == null ? all.size() - 1 : below(all, before); i >= 0; i--) {
      if (items.size() == limit) {
        next = all.get(i + 1).sequence();
        break;
      }
      items.add(Views.audit(all.get(i)));
    }
    if (next == null) {
      n.putNull("nextBefore");
    } else {
      n.put("nextBefore", next);
    }
    Json.send(rc, 200, n);
  }

  /** The index of the last entry with a sequence below {@code before} (-1 when none). */
  static int below(List<AuditEntry> all, long before) {
    int lo = 0;
    int hi = all.size(); // the first index with sequence >= before is in [lo, hi]
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (all.get(mid).sequence() < before) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1;
  }
}
