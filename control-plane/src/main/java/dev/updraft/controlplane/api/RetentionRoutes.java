package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.RetentionCommands;
import dev.updraft.controlplane.state.RetentionState;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;

/**
 * Retention policies and pinned groups: {@code GET|PUT|DELETE /v1/apps/{app}/retention} and
 * {@code POST /v1/apps/{app}/retention/apply}.
 */
final class RetentionRoutes {
  private final ApiContext ctx;

  RetentionRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    Auth auth = ctx.auth;
    router.get("/v1/apps/:app/retention").handler(auth.require(Role.READ)).handler(this::show);
    router.put("/v1/apps/:app/retention").handler(auth.requireThenBody(Role.ADMIN, body)).handler(this::set);
    router.delete("/v1/apps/:app/retention").handler(auth.require(Role.ADMIN)).handler(this::remove);
    router.post("/v1/apps/:app/retention/apply").handler(auth.require(Role.ADMIN)).handler(this::apply);
  }

  private RetentionCommands commands() {
    return ctx.deps.commands().retention();
  }

  private void show(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    Json.send(rc, 200, view(app, ctx.state().retention(app)));
  }

  /** {@code {"branch": "main", "keep": 10, "maxAge": "90d"}}; without branch the app-wide policy. */
  private void set(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    ObjectNode b = Json.body(rc);
    Integer keep = Json.integer(b, "keep");
    if (keep == null) {
      throw CommandException.badRequest("missing-field", "keep (the newest groups kept per branch and runtime version) is required");
    }
    String maxAge = Json.string(b, "maxAge");
    Duration age = null;
    if (maxAge != null) {
      try {
        age = Settings.parseDuration(maxAge);
      } catch (IllegalArgumentException e) {
        throw CommandException.badRequest("invalid-max-age", "maxAge must be a duration like 90d or 720h: got '" + maxAge + "'");
      }
    }
    ApiContext.reply(rc, commands().set(ctx.actor(rc), app, Json.string(b, "branch"), keep, age), 200, r -> view(app, r));
  }

  private void remove(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    ApiContext.reply(rc, commands().remove(ctx.actor(rc), app, rc.queryParams().get("branch")), 200, r -> view(app, r));
  }

  private void apply(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    ApiContext.reply(
        rc, commands().apply(app), 200,
        a -> {
          ObjectNode n = Json.MAPPER.createObjectNode();
          n.put("appId", a.appId());
          n.put("groupsDeleted", a.groupsDeleted());
          n.put("events", a.events());
          return n;
        });
  }

  static ObjectNode view(String appId, RetentionState r) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("appId", appId);
    ArrayNode ps = n.putArray("policies");
    for (RetentionState.Policy p : r.policies().values()) {
      ObjectNode pn = ps.addObject();
      pn.put("branch", p.branch());
      pn.put("keep", p.keep());
      if (p.maxAge() == null) {
        pn.putNull("maxAgeSeconds");
      } else {
        pn.put("maxAgeSeconds", p.maxAge().toSeconds());
      }
      pn.put("setAt", p.setAt().toString());
      pn.put("setBy", p.setBy());
    }
    ArrayNode pinned = n.putArray("pinned");
    r.pinned().forEach(pinned::add);
    return n;
  }
}
