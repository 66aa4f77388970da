package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.commands.Requests.ChannelRequest;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;

/**
 * Branches and channels: {@code GET /v1/apps/{app}/branches}, {@code /channels}, {@code PUT /channels/{channel}},
 * {@code POST /channels/{channel}/pause} and {@code /resume}.
 */
final class ChannelRoutes {
  private final ApiContext ctx;

  ChannelRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    Auth auth = ctx.auth;
    router.get("/v1/apps/:app/branches").handler(auth.require(Role.READ)).handler(this::listBranches);
    router.get("/v1/apps/:app/channels").handler(auth.require(Role.READ)).handler(this::listChannels);
    router.put("/v1/apps/:app/channels/:channel").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::mapChannel);
    router.post("/v1/apps/:app/channels/:channel/pause").handler(auth.require(Role.PUBLISH)).handler(rc -> pause(rc, true));
    router.post("/v1/apps/:app/channels/:channel/resume").handler(auth.require(Role.PUBLISH)).handler(rc -> pause(rc, false));
  }

  private void pause(RoutingContext rc, boolean pause) {
    AppState a = ctx.app(rc);
    ApiContext.reply(rc, ctx.deps.commands().channels().pauseChannel(ctx.actor(rc), a.appId(), rc.pathParam("channel"), pause),
        200, Views::channel);
  }

  private void listBranches(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (Map.Entry<String, List<String>> e : a.branches().entrySet()) {
      ObjectNode bn = items.addObject();
      bn.put("branch", e.getKey());
      ArrayNode rts = bn.putArray("runtimeVersions");
      for (String rt : e.getValue()) {
        List<GroupState> gs = a.groupsNewestFirst(e.getKey(), rt);
        ObjectNode rn = rts.addObject();
        rn.put("runtimeVersion", rt);
        rn.put("groupCount", gs.size());
        rn.put("latestGroupId", gs.isEmpty() ? null : gs.get(0).groupId());
        GroupState active = a.activeRollout(e.getKey(), rt);
        rn.put("activeRolloutGroupId", active == null ? null : active.groupId());
      }
    }
    Json.send(rc, 200, n);
  }

  private void listChannels(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (ChannelMapped c : a.channels().values()) {
      items.add(Views.channel(c));
    }
    Json.send(rc, 200, n);
  }

  private void mapChannel(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode b = Json.body(rc);
    ChannelRequest req =
        new ChannelRequest(
            rc.pathParam("channel"),
            Json.requiredString(b, "branch"),
            Json.string(b, "rolloutBranch"),
            Json.integer(b, "percentage"),
            Json.string(b, "rolloutRuntimeVersion"));
    ApiContext.reply(rc, ctx.deps.commands().channels().mapChannel(ctx.actor(rc), a.appId(), req), 200, Views::channel);
  }
}
