package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.commands.DeletionCommands;
import dev.updraft.controlplane.commands.DeletionCommands.Deleted;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Deletions and pins: {@code DELETE /v1/apps/{app}/updates/{groupId}} ({@code ?force=true}),
 * {@code PUT|DELETE …/updates/{groupId}/pin}, {@code DELETE /v1/apps/{app}/branches/{branch}},
 * {@code DELETE /v1/apps/{app}/channels/{channel}} and {@code DELETE /v1/apps/{app}?confirm={app}}.
 */
final class DeletionRoutes {
  private final ApiContext ctx;

  DeletionRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router) {
    Auth auth = ctx.auth;
    router.delete("/v1/apps/:app/updates/:groupId").handler(auth.require(Role.PUBLISH)).handler(this::deleteGroup);
    router.put("/v1/apps/:app/updates/:groupId/pin").handler(auth.require(Role.PUBLISH)).handler(rc -> pin(rc, true));
    router.delete("/v1/apps/:app/updates/:groupId/pin").handler(auth.require(Role.PUBLISH)).handler(rc -> pin(rc, false));
    router.delete("/v1/apps/:app/branches/:branch").handler(auth.require(Role.PUBLISH)).handler(this::deleteBranch);
    router.delete("/v1/apps/:app/channels/:channel").handler(auth.require(Role.PUBLISH)).handler(this::deleteChannel);
    router.delete("/v1/apps/:app").handler(auth.require(Role.ADMIN)).handler(this::deleteApp);
  }

  private DeletionCommands commands() {
    return ctx.deps.commands().deletions();
  }

  /** A held group, or one only the history projection has (then its stored fields are what the command checks). */
  private void deleteGroup(RoutingContext rc) {
    AppState a = ctx.app(rc);
    String app = a.appId();
    boolean force = "true".equals(rc.queryParams().get("force"));
    String actor = ctx.actor(rc);
    String id = rc.pathParam("groupId");
    ApiContext.reply(
        rc, notHeld(a, id).compose(stored -> commands().deleteGroup(actor, app, id, force, stored)), 200, DeletionRoutes::deleted);
  }

  /** The stored group when the control plane does not hold {@code groupId} (null when held or unknown). */
  private Future<GroupState> notHeld(AppState a, String groupId) {
    if (groupId == null || a.group(groupId) != null) {
      return Future.succeededFuture(null);
    }
    return ctx.groups.stored(a, groupId).map(s -> s == null ? null : s.group());
  }

  private void pin(RoutingContext rc, boolean pinned) {
    AppState a = ctx.app(rc);
    String app = a.appId();
    String actor = ctx.actor(rc);
    String id = rc.pathParam("groupId");
    ApiContext.reply(
        rc, notHeld(a, id).compose(stored -> commands().pin(actor, app, id, pinned, stored)), 200,
        g -> {
          ObjectNode n = Json.MAPPER.createObjectNode();
          n.put("appId", app);
          n.put("groupId", g.groupId());
          n.put("pinned", ctx.state().retention(app).isPinned(g.groupId()));
          return n;
        });
  }

  private void deleteBranch(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    ApiContext.reply(rc, commands().deleteBranch(ctx.actor(rc), app, rc.pathParam("branch")), 200, DeletionRoutes::deleted);
  }

  private void deleteChannel(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    ApiContext.reply(rc, commands().deleteChannel(ctx.actor(rc), app, rc.pathParam("channel")), 200, DeletionRoutes::deleted);
  }

  private void deleteApp(RoutingContext rc) {
    String app = ctx.app(rc).appId();
    ApiContext.reply(rc, commands().deleteApp(ctx.actor(rc), app, rc.queryParams().get("confirm")), 200, DeletionRoutes::deleted);
  }

  static ObjectNode deleted(Deleted d) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("appId", d.appId());
    n.put("deleted", d.what());
    var ids = n.putArray("groupIds");
    d.groupIds().forEach(ids::add);
    return n;
  }
}
