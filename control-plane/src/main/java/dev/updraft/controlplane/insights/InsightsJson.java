package dev.updraft.controlplane.insights;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * The JSON shapes of the insights routes ({@code GroupInsights}, {@code ChannelInsights},
 * {@code DeviceRecord} in docs/api/openapi.yaml). Written field by field rather than by reflection so that
 * renaming a record component cannot silently change the API. Times are ISO-8601 UTC strings.
 */
final class InsightsJson {
  static final ObjectMapper MAPPER = JsonMapper.builder().build();

  private InsightsJson() {}

  static ObjectNode group(String groupId, GroupInsights g) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("appId", g.appId());
    n.put("groupId", groupId);
    n.put("asOf", time(g.asOf()));
    n.put("since24h", time(g.since24h()));
    n.put("since7d", time(g.since7d()));
    ArrayNode ps = n.putArray("platforms");
    for (UpdateStats s : g.platforms()) {
      ps.add(stats(s));
    }
    n.set("total", stats(g.total()));
    return n;
  }

  /** {@code UpdateSeries} in openapi.yaml: every platform's {@link UpdateSeries#HOURS} points, oldest first. */
  static ObjectNode series(String groupId, UpdateSeries.Series s, Double maxFailureRatePercent) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("appId", s.appId());
    n.put("groupId", groupId);
    n.put("asOf", time(s.asOf()));
    n.put("since", time(s.since()));
    n.put("hours", UpdateSeries.HOURS);
    n.put("maxFailureRatePercent", maxFailureRatePercent);
    ArrayNode ps = n.putArray("platforms");
    for (UpdateSeries.Platform p : s.platforms()) {
      ObjectNode pn = ps.addObject();
      pn.put("platform", p.platform());
      pn.put("updateId", p.updateId());
      ArrayNode points = pn.putArray("points");
      for (UpdateSeries.Point pt : p.points()) {
        ObjectNode o = points.addObject();
        o.put("hour", time(pt.hour()));
        o.put("launches", pt.launches());
        o.put("served", pt.served());
        o.put("failureReports", pt.failureReports());
        o.put("devices", pt.devices());
        o.put("failedDevices", pt.failedDevices());
        o.put("failureRatePercent", pt.failureRatePercent());
      }
    }
    return n;
  }

  static ObjectNode stats(UpdateStats s) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("platform", s.platform());
    n.put("updateId", s.updateId());
    n.put("devicesNow", s.devicesNow());
    n.put("launches24h", s.launches24h());
    n.put("launches7d", s.launches7d());
    n.put("failureReports24h", s.failureReports24h());
    n.put("failureReports7d", s.failureReports7d());
    n.put("failedDevices", s.failedDevices());
    n.put("receivedDevices", s.receivedDevices());
    n.put("failureRatePercent", s.failureRatePercent());
    return n;
  }

  static ObjectNode channel(ChannelInsights c) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("appId", c.appId());
    n.put("channel", c.channel());
    n.put("asOf", time(c.asOf()));
    n.put("devices", c.devices());
    n.put("embeddedDevices", c.embeddedDevices());
    n.put("otaDevices", c.otaDevices());
    n.put("unknownDevices", c.unknownDevices());
    n.put("since7d", time(c.since7d()));
    n.put("launches7d", c.launches7d());
    n.put("embeddedLaunches7d", c.embeddedLaunches7d());
    n.put("otaLaunches7d", c.otaLaunches7d());
    ArrayNode us = n.putArray("updates");
    for (ChannelAdoption a : c.updates()) {
      ObjectNode u = us.addObject();
      u.put("platform", a.platform());
      u.put("updateId", a.updateId());
      u.put("devices", a.devices());
      u.put("embeddedDevices", a.embeddedDevices());
      u.put("otaDevices", a.otaDevices());
      u.put("sharePercent", a.sharePercent());
    }
    return n;
  }

  static ObjectNode device(DeviceRecord d, String explanation) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("appId", d.appId());
    n.put("clientId", d.clientId());
    n.put("platform", d.platform());
    n.put("runtimeVersion", d.runtimeVersion());
    n.put("channel", d.channel());
    n.put("currentUpdateId", d.currentUpdateId());
    n.put("embeddedUpdateId", d.embeddedUpdateId());
    n.put("source", d.source());
    ArrayNode failed = n.putArray("failedUpdateIds");
    for (String id : d.failedUpdateIds()) {
      failed.add(id);
    }
    n.put("fatalError", d.fatalError());
    n.put("fatalErrorAt", time(d.fatalErrorAt()));
    n.put("firstSeen", time(d.firstSeen()));
    n.put("lastSeen", time(d.lastSeen()));
    n.put("checkIns", d.checkIns());
    n.put("lastCheckInId", d.lastCheckInId());
    n.put("edgeId", d.edgeId());
    ObjectNode s = n.putObject("served");
    DeviceRecord.Served v = d.served();
    s.put("outcome", v.outcome());
    s.put("reason", v.reason());
    s.put("branch", v.branch());
    s.put("inBranchRollout", v.inBranchRollout());
    s.put("rolloutBucket", v.rolloutBucket());
    s.put("updateId", v.updateId());
    s.put("groupId", v.groupId());
    s.put("firstServedAt", time(v.firstServedAt()));
    s.put("filters", v.filters());
    ArrayNode skipped = s.putArray("skippedUpdateIds");
    for (String id : d.skippedUpdateIds()) {
      skipped.add(id);
    }
    n.put("explanation", explanation);
    return n;
  }

  static ObjectNode refusals(String appId, java.util.List<Refusal> refusals) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("appId", appId);
    ArrayNode items = n.putArray("items");
    for (Refusal r : refusals) {
      ObjectNode i = items.addObject();
      i.put("reason", r.reason());
      i.put("runtimeVersion", r.runtimeVersion());
      i.put("embeddedUpdateId", r.embeddedUpdateId());
      i.put("devices", r.devices());
      i.put("requests", r.requests());
      i.put("firstSeen", time(r.firstSeen()));
      i.put("lastSeen", time(r.lastSeen()));
      i.put("summary", r.summary());
    }
    return n;
  }

  private static String time(Instant t) {
    return t == null ? null : t.toString();
  }
}
