package dev.updraft.consoletests;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.ControlPlaneExtension;
import dev.updraft.controlplane.ExtensionContext;
import dev.updraft.controlplane.Role;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.EventPayload.PlatformUpdate;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/**
 * The insights routes' documented contract (group, channel and device answers) with fixed numbers, for
 * app {@link #APP} only: the real routes come from the telemetry ingester's insights, built in parallel,
 * and what this test checks is that the console draws what the contract says. For any other app the
 * handlers step aside, so the router answers its own 404 {@code not-found} as on a control plane without
 * insights, and the console's "not available" path is exercised too.
 *
 * <p>Numbers (per platform: ios, android): devices now 40 / 25; launches 24 h 120 / 80, 7 d 610 / 400;
 * failure reports 24 h 6 / 0, 7 d 9 / 1; failed devices 5 / 1; received 118 / 60; failure rate 4.2% / 1.7%.
 */
final class ContractInsights implements ControlPlaneExtension {
  static final String APP = "console-demo";
  static final String DEVICE = "device-a";
  static final String DEVICE_EXPLANATION_PREFIX = "channel \"production\" → branch \"production\" → rollout bucket 417 → update ";

  @Override
  public Future<Void> mount(ExtensionContext ctx) {
    ctx.router().get("/v1/apps/:app/insights/updates/:groupId").handler(ctx.authorize(Role.READ)).handler(rc -> group(ctx, rc));
    ctx.router().get("/v1/apps/:app/insights/updates/:groupId/hourly").handler(ctx.authorize(Role.READ)).handler(rc -> hourly(ctx, rc));
    ctx.router().get("/v1/apps/:app/insights/channels/:channel").handler(ctx.authorize(Role.READ)).handler(rc -> channel(ctx, rc));
    ctx.router().get("/v1/apps/:app/devices/:clientId").handler(ctx.authorize(Role.READ)).handler(rc -> device(ctx, rc));
    return Future.succeededFuture();
  }

  private static void send(RoutingContext rc, ObjectNode n) {
    rc.response().putHeader("content-type", "application/json").end(n.toString());
  }

  private static ObjectNode stats(String platform, String updateId, long now, long l24, long l7, long f24, long f7, long failed, long received, Double rate) {
    ObjectNode n = ApiClient.JSON.createObjectNode();
    n.put("platform", platform);
    n.put("updateId", updateId);
    n.put("devicesNow", now);
    n.put("launches24h", l24);
    n.put("launches7d", l7);
    n.put("failureReports24h", f24);
    n.put("failureReports7d", f7);
    n.put("failedDevices", failed);
    n.put("receivedDevices", received);
    n.put("failureRatePercent", rate);
    return n;
  }

  private static void group(ExtensionContext ctx, RoutingContext rc) {
    if (!APP.equals(rc.pathParam("app"))) {
      rc.next();
      return;
    }
    AppState app = ctx.state().app(APP);
    GroupState g = app == null ? null : app.group(rc.pathParam("groupId"));
    if (g == null) {
      ctx.fail(rc, 404, "update-not-found", "app " + APP + " has no update group " + rc.pathParam("groupId"));
      return;
    }
    ObjectNode n = ApiClient.JSON.createObjectNode();
    n.put("appId", APP);
    n.put("groupId", g.groupId());
    n.put("asOf", "2026-11-30T12:34:00Z");
    n.put("since24h", "2026-11-29T13:00:00Z");
    n.put("since7d", "2026-11-23T13:00:00Z");
    ArrayNode ps = n.putArray("platforms");
    for (PlatformUpdate p : g.group().platforms()) {
      ps.add(
          p.platform().equals("ios")
              ? stats("ios", p.updateId(), 40, 120, 610, 6, 9, 5, 118, 4.2)
              : stats(p.platform(), p.updateId(), 25, 80, 400, 0, 1, 1, 60, 1.7));
    }
    n.set("total", stats(null, null, 65, 200, 1010, 6, 10, 6, 178, 3.4));
    send(rc, n);
  }

  /**
   * The hour-by-hour contract: 168 hours from 2026-11-23T13:00Z. ios: received by 10 more devices each hour
   * from hour 160 (80 at the end), 10 launches an hour from then (80 in all), 4 devices failed from hour
   * 165 (6.7% then, 5% at the end); android: 5 more devices an hour from hour 164 (20), 5 launches an hour
   * (20 in all), none failed. The guard's threshold comes from the group's rollout, as the real route's.
   */
  private static void hourly(ExtensionContext ctx, RoutingContext rc) {
    if (!APP.equals(rc.pathParam("app"))) {
      rc.next();
      return;
    }
    AppState app = ctx.state().app(APP);
    GroupState g = app == null ? null : app.group(rc.pathParam("groupId"));
    if (g == null) {
      ctx.fail(rc, 404, "update-not-found", "app " + APP + " has no update group " + rc.pathParam("groupId"));
      return;
    }
    java.time.Instant since = java.time.Instant.parse("2026-11-23T13:00:00Z");
    ObjectNode n = ApiClient.JSON.createObjectNode();
    n.put("appId", APP);
    n.put("groupId", g.groupId());
    n.put("asOf", "2026-11-30T12:34:00Z");
    n.put("since", since.toString());
    n.put("hours", 168);
    if (g.rollout() != null && g.rollout().guard() != null) {
      n.put("maxFailureRatePercent", g.rollout().guard().maxFailureRatePercent());
    } else {
      n.putNull("maxFailureRatePercent");
    }
    ArrayNode ps = n.putArray("platforms");
    for (PlatformUpdate p : g.group().platforms()) {
      boolean ios = p.platform().equals("ios");
      int from = ios ? 160 : 164;
      int step = ios ? 10 : 5;
      ObjectNode pn = ps.addObject();
      pn.put("platform", p.platform());
      pn.put("updateId", p.updateId());
      ArrayNode points = pn.putArray("points");
      for (int i = 0; i < 168; i++) {
        long devices = i >= from ? (long) (i - from + 1) * step : 0;
        long failed = ios && i >= 165 ? 4 : 0;
        ObjectNode o = points.addObject();
        o.put("hour", since.plusSeconds(3600L * i).toString());
        o.put("launches", i >= from ? step : 0);
        o.put("served", i >= from ? step : 0);
        o.put("failureReports", failed > 0 ? 1 : 0);
        o.put("devices", devices);
        o.put("failedDevices", failed);
        if (devices == 0) {
          o.putNull("failureRatePercent");
        } else {
          o.put("failureRatePercent", 100.0 * failed / devices);
        }
      }
    }
    send(rc, n);
  }

  private static void channel(ExtensionContext ctx, RoutingContext rc) {
    if (!APP.equals(rc.pathParam("app"))) {
      rc.next();
      return;
    }
    ObjectNode n = ApiClient.JSON.createObjectNode();
    n.put("appId", APP);
    n.put("channel", rc.pathParam("channel"));
    n.put("asOf", "2026-11-30T12:34:00Z");
    n.put("devices", 40);
    n.put("embeddedDevices", 8);
    n.put("otaDevices", 30);
    n.put("unknownDevices", 2);
    n.put("since7d", "2026-11-23T13:00:00Z");
    n.put("launches7d", 500);
    n.put("embeddedLaunches7d", 90);
    n.put("otaLaunches7d", 410);
    ArrayNode us = n.putArray("updates");
    us.addObject().put("platform", "ios").put("updateId", "0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00").put("devices", 18).put("embeddedDevices", 0).put("otaDevices", 18).put("sharePercent", 45.0);
    us.addObject().put("platform", "android").put("updateId", "7e1d9c8b-6a5f-4e3d-9c2b-1a0f9e8d7c00").put("devices", 12).put("embeddedDevices", 0).put("otaDevices", 12).put("sharePercent", 30.0);
    us.addObject().put("platform", "ios").putNull("updateId").put("devices", 10).put("embeddedDevices", 8).put("otaDevices", 0).put("sharePercent", 25.0);
    send(rc, n);
  }

  private static void device(ExtensionContext ctx, RoutingContext rc) {
    if (!APP.equals(rc.pathParam("app"))) {
      rc.next();
      return;
    }
    String id = rc.pathParam("clientId");
    if (!DEVICE.equals(id)) {
      ctx.fail(rc, 404, "device-not-found", "no device " + id + " has checked in for app " + APP + " (client ids are lower-cased EAS-Client-ID values)");
      return;
    }
    AppState app = ctx.state().app(APP);
    GroupState newest = app.groupsNewestFirst("production", "1.0.0").get(0);
    String updateId = newest.platform("ios").updateId();
    ObjectNode n = ApiClient.JSON.createObjectNode();
    n.put("appId", APP);
    n.put("clientId", DEVICE);
    n.put("platform", "ios");
    n.put("runtimeVersion", "1.0.0");
    n.put("channel", "production");
    n.put("currentUpdateId", "0d5e7c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6");
    n.put("embeddedUpdateId", "0d5e7c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6");
    n.put("source", "embedded");
    n.putArray("failedUpdateIds");
    n.putNull("fatalError");
    n.putNull("fatalErrorAt");
    n.put("firstSeen", "2026-11-30T09:00:00Z");
    n.put("lastSeen", "2026-11-30T12:30:00Z");
    n.put("checkIns", 7);
    n.put("lastCheckInId", "c7a1e2d3-0000-4000-8000-000000000007");
    n.put("edgeId", "edge-1");
    ObjectNode s = n.putObject("served");
    s.put("outcome", "update");
    s.put("reason", "newUpdate");
    s.put("branch", "production");
    s.put("inBranchRollout", false);
    s.put("rolloutBucket", 417);
    s.put("updateId", updateId);
    s.put("groupId", newest.groupId());
    n.put("explanation", DEVICE_EXPLANATION_PREFIX + updateId + " (group " + newest.groupId() + "): newer than the running 0d5e7c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6");
    send(rc, n);
  }
}
