package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.commands.AppCommands;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.TokenState;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Apps, their settings and their tokens: {@code /v1/apps}, {@code /v1/apps/{app}} (GET, PATCH),
 * {@code /v1/apps/{app}/tokens}.
 */
final class AppRoutes {
  private final ApiContext ctx;

  AppRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    Auth auth = ctx.auth;
    router.get("/v1/apps").handler(auth.requireAny()).handler(this::listApps);
    router.post("/v1/apps").handler(auth.requireBootstrapAdminThenBody(body)).handler(this::createApp);
    router.get("/v1/apps/:app").handler(auth.require(Role.READ)).handler(this::getApp);
    router.patch("/v1/apps/:app").handler(auth.requireThenBody(Role.ADMIN, body)).handler(this::updateApp);
    router.get("/v1/apps/:app/tokens").handler(auth.require(Role.ADMIN)).handler(this::listTokens);
    router.post("/v1/apps/:app/tokens").handler(auth.requireThenBody(Role.ADMIN, body)).handler(this::createToken);
    router.delete("/v1/apps/:app/tokens/:tokenId").handler(auth.require(Role.ADMIN)).handler(this::revokeToken);
  }
  /** Resolved per request: the API is also built without commands (route listings in tests). */
  private AppCommands commands() {
    return ctx.deps.commands().apps();
  }


  private void listApps(RoutingContext rc) {
    Principal p = ctx.auth.authenticate(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (AppState a : ctx.state().apps().values()) {
      if (p.mayActOn(a.appId())) {
        items.add(Views.app(a));
      }
    }
    Json.send(rc, 200, n);
  }

  private void createApp(RoutingContext rc) {
    ObjectNode b = Json.body(rc);
    String appId = Json.requiredString(b, "appId");
    ApiContext.reply(
        rc, commands().createApp(ctx.actor(rc), appId, Json.string(b, "displayName"), KeyRoutes.keyMaterial(b, false)), 201, Views::app);
  }

  private void getApp(RoutingContext rc) {
    Json.send(rc, 200, Views.app(ctx.app(rc)));
  }

  /** {@code {"defaultChannel": "production"}} sets it, {@code {"defaultChannel": null}} removes it. */
  private void updateApp(RoutingContext rc) {
    ctx.app(rc);
    ObjectNode b = Json.body(rc);
    if (!b.has("defaultChannel")) {
      throw CommandException.badRequest(
          "missing-field", "nothing to change: give defaultChannel (a channel name, or null to remove the default)");
    }
    ApiContext.reply(
        rc, commands().updateApp(ctx.actor(rc), rc.pathParam("app"), Json.string(b, "defaultChannel")), 200, Views::app);
  }

  private void listTokens(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (TokenState t : a.tokens().values()) {
      items.add(Views.token(t, ctx.auth.now()));
    }
    Json.send(rc, 200, n);
  }

  private void createToken(RoutingContext rc) {
    ctx.app(rc);
    ObjectNode b = Json.body(rc);
    ApiContext.reply(
        rc,
        commands().issueToken(ctx.actor(rc), rc.pathParam("app"), Json.requiredString(b, "role"), Json.string(b, "label"),
            Json.string(b, "expiresIn"), Json.string(b, "expiresAt")),
        201,
        t -> {
          ObjectNode n = Views.token(t.token(), ctx.auth.now());
          n.put("token", t.secret());
          return n;
        });
  }

  private void revokeToken(RoutingContext rc) {
    ctx.app(rc);
    ApiContext.reply(rc, commands().revokeToken(ctx.actor(rc), rc.pathParam("app"), rc.pathParam("tokenId")), 200,
        t -> Views.token(t, ctx.auth.now()));
  }
}
