package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.Requests.RolloutEdit;
import dev.updraft.controlplane.commands.RolloutCommands;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Steering a per-update rollout: {@code PATCH …/updates/{groupId}/rollout}, {@code POST …/rollout/finish},
 * {@code POST …/rollout/revert}; and the {@code rolloutGuard} shape a publish shares.
 */
final class RolloutRoutes {
  private final ApiContext ctx;

  RolloutRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    Auth auth = ctx.auth;
    router.patch("/v1/apps/:app/updates/:groupId/rollout").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::change);
    router.post("/v1/apps/:app/updates/:groupId/rollout/finish").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::finish);
    router.post("/v1/apps/:app/updates/:groupId/rollout/revert").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::revert);
  }

  private RolloutCommands commands() {
    return ctx.deps.commands().rollouts();
  }

  /** A rollout guard from its JSON object (null for null), or 400 {@code invalid-guard}. */
  static RolloutGuard guard(ObjectNode g) {
    if (g == null) {
      return null;
    }
    Double rate = Json.number(g, "maxFailureRatePercent");
    Integer min = Json.integer(g, "minDevices");
    Long window = Json.longValue(g, "windowSeconds");
    if (rate == null || rate < 0 || rate > 100) {
      throw CommandException.badRequest("invalid-guard", "rolloutGuard.maxFailureRatePercent must be a number from 0 to 100");
    }
    if (min == null || min < 1) {
      throw CommandException.badRequest("invalid-guard", "rolloutGuard.minDevices must be at least 1");
    }
    if (window == null || window < 60 || window > 30L * 24 * 3600) {
      throw CommandException.badRequest("invalid-guard", "rolloutGuard.windowSeconds must be between 60 and 2592000");
    }
    return new RolloutGuard(rate, min, window);
  }

  private void change(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode b = Json.body(rc);
    Integer pct = Json.integer(b, "percentage");
    JsonNode g = b.get("guard");
    boolean clear = g != null && g.isNull();
    RolloutGuard guard = clear ? null : guard(Json.object(b, "guard"));
    if (pct == null && guard == null && !clear) {
      throw CommandException.badRequest("missing-field", "give percentage and/or guard (null removes the guard)");
    }
    ApiContext.reply(
        rc,
        commands().changeRollout(ctx.actor(rc), a.appId(), rc.pathParam("groupId"), new RolloutEdit(pct, guard, clear)),
        200,
        gs -> Views.group(gs, false));
  }

  private void finish(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ApiContext.reply(rc, commands().finishRollout(ctx.actor(rc), a.appId(), rc.pathParam("groupId")), 200, gs -> Views.group(gs, false));
  }

  private void revert(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode b = Json.body(rc);
    ApiContext.reply(
        rc,
        commands().revertRollout(ctx.actor(rc), a.appId(), rc.pathParam("groupId"), Json.string(b, "reason")),
        200,
        r -> {
          ObjectNode n = Json.MAPPER.createObjectNode();
          n.set("reverted", Views.group(r.reverted(), false));
          n.set("replacement", Views.group(r.replacement(), true));
          return n;
        });
  }
}
