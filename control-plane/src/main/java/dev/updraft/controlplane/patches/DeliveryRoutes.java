package dev.updraft.controlplane.patches;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.ExpoUpdatesVersion;
import dev.updraft.controlplane.spi.ExtensionContext;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.Deliveries;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/**
 * The publisher API of deliveries: {@code POST|GET /v1/apps/{app}/builds} (register a build's embedded
 * bundle, list them), {@code GET /v1/apps/{app}/updates/{groupId}/patches} (the encodings and bundle
 * patches of a group's launch assets) and {@code GET /v1/apps/{app}/runtime-versions/{runtimeVersion}/activity}
 * (devices seen lately and builds registered: the publish CLI's orphan warning). Event loop.
 */
final class DeliveryRoutes {
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private final ExtensionContext ctx;
  private final Commands commands;
  private final AssetStorage storage;
  private final FleetBases fleet;

  DeliveryRoutes(ExtensionContext ctx, Commands commands, AssetStorage storage, FleetBases fleet) {
    this.ctx = ctx;
    this.commands = commands;
    this.storage = storage;
    this.fleet = fleet;
  }

  void mount() {
    ctx.router().post("/v1/apps/:app/builds").handler(ctx.authorizeThenBody(Role.PUBLISH)).handler(this::register);
    ctx.router().get("/v1/apps/:app/builds").handler(ctx.authorize(Role.READ)).handler(this::builds);
    ctx.router().get("/v1/apps/:app/updates/:groupId/patches").handler(ctx.authorize(Role.READ)).handler(this::patches);
    ctx.router().get("/v1/apps/:app/runtime-versions/:runtimeVersion/activity").handler(ctx.authorize(Role.READ)).handler(this::activity);
  }

  private void register(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    JsonNode b;
    try {
      b = JSON.readTree(rc.body().asString());
    } catch (Exception e) {
      ctx.fail(rc, 400, "invalid-json", "the body is not JSON: " + e.getMessage());
      return;
    }
    if (b == null || !b.isObject()) {
      ctx.fail(rc, 400, "invalid-json", "the body must be a JSON object with platform, runtimeVersion, embeddedUpdateId and bundleSha256");
      return;
    }
    String sha = text(b, "bundleSha256");
    JsonNode version = b.get("expoUpdatesVersion");
    if (version != null && !version.isNull() && (!version.isTextual() || ExpoUpdatesVersion.parse(version.asText()) == null)) {
      String got = version.isTextual() ? "'" + (version.asText().length() > 40 ? version.asText().substring(0, 40) + "…" : version.asText()) + "'"
          : "a JSON " + version.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
      ctx.fail(rc, 400, "invalid-expo-updates-version", "expoUpdatesVersion must be an expo-updates release such as \"57.0.24\" "
          + "(MAJOR.MINOR.PATCH, as in node_modules/expo-updates/package.json): got " + got);
      return;
    }
    String actor = ctx.actor(rc);
    ctx.vertx()
        .executeBlocking(() -> sha == null || !sha.matches("[0-9a-f]{64}") ? null : storage.stat(app.appId(), sha))
        .compose(stored -> {
          if (stored == null && sha != null && sha.matches("[0-9a-f]{64}")) {
            return Future.failedFuture(CommandException.badRequest("bundle-not-stored",
                "no asset " + sha + " is stored for app " + app.appId() + ": upload the bundle first (PUT /v1/apps/" + app.appId()
                    + "/assets/" + sha + "; updraft builds register does both)"));
          }
          long size = stored == null ? -1 : stored.size();
          return commands.deliveries().registerBuild(actor, app.appId(), text(b, "platform"), text(b, "runtimeVersion"),
              text(b, "embeddedUpdateId"), sha, size, text(b, "expoUpdatesVersion"));
        })
        .onComplete(ar -> {
          if (ar.failed()) {
            failWith(rc, ar.cause());
          } else {
            send(rc, 201, build(ar.result()));
          }
        });
  }

  private void builds(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    outcomes(app.appId()).onComplete(ar -> {
      PatchOutcomes o = ar.result();
      ObjectNode out = JSON.createObjectNode();
      out.put("outcomes", o == null ? "unavailable" : "ok");
      ArrayNode list = out.putArray("builds");
      for (BuildRegistered b : ctx.state().deliveries(app.appId()).builds().values()) {
        ObjectNode n = build(b);
        if (o == null) {
          n.putNull("patchesServed").putNull("patchesFailed");
        } else {
          long[] t = o.ofBase(b.embeddedUpdateId());
          n.put("patchesServed", t[0]).put("patchesFailed", t[1]);
        }
        n.put("patchesStopped", o != null && o.stopped(b.embeddedUpdateId()));
        list.add(n);
      }
      send(rc, 200, out);
    });
  }

  /** The app's patch outcomes; null when there is no telemetry database or it does not answer. */
  private Future<PatchOutcomes> outcomes(String appId) {
    return fleet == null ? Future.succeededFuture(null) : fleet.patchOutcomes(appId).otherwise((PatchOutcomes) null);
  }

  private void patches(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    GroupState g = app.group(rc.pathParam("groupId"));
    if (g == null) {
      ctx.fail(rc, 404, "update-not-found", "app " + app.appId() + " has no update group " + rc.pathParam("groupId"));
      return;
    }
    outcomes(app.appId()).onComplete(ar -> send(rc, 200, patchesView(ctx.state(), app, g, ar.result())));
  }

  /**
   * What the console and {@code updraft updates show} print for a group.
   *
   * @param o nullable: the patches served and failed are unknown
   */
  static ObjectNode patchesView(ControlState s, AppState app, GroupState g, PatchOutcomes o) {
    Deliveries d = s.deliveries(app.appId());
    ObjectNode out = JSON.createObjectNode();
    out.put("groupId", g.groupId());
    out.put("computed", d.patchesComputed(g.groupId()));
    out.put("outcomes", o == null ? "unavailable" : "ok");
    ArrayNode platforms = out.putArray("platforms");
    for (PlatformUpdate p : g.group().platforms()) {
      String sha = g.group().rollsBackToEmbedded() ? null : Bodies.launchSha(p.body());
      if (sha == null) {
        continue;
      }
      ObjectNode n = platforms.addObject();
      n.put("platform", p.platform());
      n.put("updateId", p.updateId());
      ObjectNode launch = n.putObject("launchAsset");
      launch.put("sha256", sha);
      LaunchAssetStored l = d.launchAssets().get(sha);
      ArrayNode encodings = launch.putArray("encodings");
      if (l != null) {
        launch.put("size", l.size());
        for (AssetVariant v : l.variants()) {
          encodings.addObject().put("encoding", v.encoding()).put("size", v.size());
        }
      }
      ArrayNode ps = n.putArray("patches");
      for (BundlePatch b : d.patchesOf(g.groupId(), p.platform())) {
        ObjectNode pn = ps.addObject();
        pn.put("baseSha256", b.baseSha256());
        ArrayNode ids = pn.putArray("baseUpdateIds");
        b.baseUpdateIds().forEach(ids::add);
        pn.put("sha256", b.sha256());
        pn.put("size", b.size());
      }
      ArrayNode outcomes = n.putArray("patchOutcomes");
      if (o != null) {
        for (PatchOutcomes.Row r : o.rowsOf(p.updateId())) {
          outcomes.addObject().put("baseUpdateId", r.baseUpdateId()).put("fromEmbedded", r.fromEmbedded()).put("served", r.served())
              .put("failed", r.failed()).put("baseStopped", o.stopped(r.baseUpdateId()));
        }
      }
    }
    return out;
  }

  private void activity(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    String rv = rc.pathParam("runtimeVersion");
    int builds = 0;
    for (BuildRegistered b : ctx.state().deliveries(app.appId()).builds().values()) {
      if (b.runtimeVersion().equals(rv)) {
        builds++;
      }
    }
    int registered = builds;
    Future<Long> devices = fleet == null ? Future.succeededFuture(null) : fleet.recentDevices(app.appId(), rv, 7);
    devices.onComplete(ar -> {
      ObjectNode out = JSON.createObjectNode();
      out.put("runtimeVersion", rv);
      out.put("days", 7);
      Long n = ar.succeeded() ? ar.result() : null;
      if (n == null) {
        out.putNull("devices");
      } else {
        out.put("devices", n);
      }
      out.put("telemetry", n == null ? "unavailable" : "ok");
      out.put("builds", registered);
      out.put("orphan", n != null && n == 0 && registered == 0);
      send(rc, 200, out);
    });
  }

  private AppState app(RoutingContext rc) {
    AppState a = ctx.state().app(rc.pathParam("app"));
    if (a == null) {
      ctx.fail(rc, 404, "app-not-found", "no app " + rc.pathParam("app") + "; create it with `updraft apps create " + rc.pathParam("app") + "`");
    }
    return a;
  }

  private static ObjectNode build(BuildRegistered b) {
    ObjectNode n = JSON.createObjectNode();
    n.put("platform", b.platform());
    n.put("runtimeVersion", b.runtimeVersion());
    n.put("embeddedUpdateId", b.embeddedUpdateId());
    n.put("bundleSha256", b.bundleSha256());
    n.put("size", b.size());
    if (b.expoUpdatesVersion() == null) {
      n.putNull("expoUpdatesVersion");
    } else {
      n.put("expoUpdatesVersion", b.expoUpdatesVersion());
    }
    n.put("embeddedPatches", ExpoUpdatesVersion.appliesEmbeddedPatches(b.expoUpdatesVersion()));
    return n;
  }

  private void failWith(RoutingContext rc, Throwable t) {
    if (t instanceof CommandException) {
      CommandException e = (CommandException) t;
      ctx.fail(rc, e.status(), e.code(), e.getMessage());
    } else {
      rc.fail(t);
    }
  }

  private static String text(JsonNode b, String field) {
    JsonNode v = b.get(field);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  private static void send(RoutingContext rc, int status, ObjectNode body) {
    try {
      rc.response().setStatusCode(status).putHeader("content-type", "application/json").end(JSON.writeValueAsString(body));
    } catch (Exception e) {
      rc.fail(e);
    }
  }
}
