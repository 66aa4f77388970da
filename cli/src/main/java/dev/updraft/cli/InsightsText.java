package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * The human-readable output of {@code updraft insights} and {@code updraft devices get}: tables of the
 * insights routes' JSON ({@code --json} prints that JSON as it is).
 */
final class InsightsText {
  private InsightsText() {}

  /** {@code GET /v1/apps/{app}/insights/updates/{group}}: one row per platform, then the total. */
  static String group(JsonNode r) {
    StringBuilder b = new StringBuilder();
    b.append("update group ").append(r.path("groupId").asText("?")).append(" of app ").append(r.path("appId").asText("?"))
        .append(", as of ").append(r.path("asOf").asText("?")).append('\n');
    b.append("(24 h counts from ").append(r.path("since24h").asText("?")).append(", 7 d from ").append(r.path("since7d").asText("?"))
        .append(")\n");
    String fmt = "%-9s %-36s %11s %12s %11s %15s %14s %9s %12s%n";
    b.append(String.format(Locale.ROOT, fmt, "PLATFORM", "UPDATE", "DEVICES NOW", "LAUNCHES 24H", "LAUNCHES 7D", "FAILURES 24H/7D",
        "FAILED DEVICES", "RECEIVED", "FAILURE RATE"));
    for (JsonNode p : r.path("platforms")) {
      b.append(row(fmt, p.path("platform").asText("?"), p.path("updateId").asText("?"), p));
    }
    b.append(row(fmt, "all", "", r.path("total")));
    return b.toString().stripTrailing();
  }

  private static String row(String fmt, String platform, String update, JsonNode s) {
    return String.format(Locale.ROOT, fmt, platform, update, s.path("devicesNow").asLong(), s.path("launches24h").asLong(),
        s.path("launches7d").asLong(), s.path("failureReports24h").asLong() + "/" + s.path("failureReports7d").asLong(),
        s.path("failedDevices").asLong(), s.path("receivedDevices").asLong(), percent(s.path("failureRatePercent")));
  }

  /**
   * {@code GET /v1/apps/{app}/insights/updates/{group}/hourly}: the numbers the console's charts draw, one
   * row per hour and platform in which something happened (check-ins, or a change in devices or failures),
   * then each platform's totals. Quiet hours are left out: the charts show them as flat.
   */
  static String hourly(JsonNode r) {
    StringBuilder b = new StringBuilder();
    b.append("update group ").append(r.path("groupId").asText("?")).append(" of app ").append(r.path("appId").asText("?"))
        .append(", hour by hour from ").append(r.path("since").asText("?")).append(" to ").append(r.path("asOf").asText("?")).append('\n');
    JsonNode guard = r.path("maxFailureRatePercent");
    b.append(guard.isNumber() ? "rollout guard: reverts above " + percent(guard) + " failure rate" : "no rollout guard").append('\n');
    String fmt = "%-17s %-9s %9s %7s %16s %8s %7s %13s%n";
    b.append(String.format(Locale.ROOT, fmt, "HOUR (UTC)", "PLATFORM", "LAUNCHES", "SERVED", "FAILURE REPORTS", "DEVICES", "FAILED", "FAILURE RATE"));
    int rows = 0;
    StringBuilder totals = new StringBuilder();
    for (JsonNode p : r.path("platforms")) {
      long launches = 0;
      long served = 0;
      long reports = 0;
      long devices = 0;
      long failed = 0;
      JsonNode last = null;
      for (JsonNode pt : p.path("points")) {
        long d = pt.path("devices").asLong();
        long f = pt.path("failedDevices").asLong();
        boolean active = pt.path("launches").asLong() + pt.path("served").asLong() + pt.path("failureReports").asLong() > 0 || d != devices || f != failed;
        devices = d;
        failed = f;
        launches += pt.path("launches").asLong();
        served += pt.path("served").asLong();
        reports += pt.path("failureReports").asLong();
        last = pt;
        if (active) {
          rows++;
          String hour = pt.path("hour").asText("?");
          b.append(String.format(Locale.ROOT, fmt, hour.length() >= 16 ? hour.substring(0, 16).replace('T', ' ') : hour,
              p.path("platform").asText("?"), pt.path("launches").asLong(), pt.path("served").asLong(), pt.path("failureReports").asLong(),
              d, f, percent(pt.path("failureRatePercent"))));
        }
      }
      totals.append(p.path("platform").asText("?")).append(": ").append(launches).append(" launches, ").append(served)
          .append(" served, ").append(reports).append(" failure reports; ")
          .append(last == null ? 0 : last.path("devices").asLong()).append(" devices, ")
          .append(last == null ? 0 : last.path("failedDevices").asLong()).append(" failed (")
          .append(last == null ? "-" : percent(last.path("failureRatePercent"))).append(") at the end\n");
    }
    if (rows == 0) {
      b.append("(no check-ins in these 7 days)\n");
    }
    return (b.toString() + totals).stripTrailing();
  }

  /** {@code GET /v1/apps/{app}/insights/channels/{channel}}: the split, then one row per (platform, update). */
  static String channel(JsonNode r) {
    StringBuilder b = new StringBuilder();
    long devices = r.path("devices").asLong();
    b.append("channel ").append(r.path("channel").asText("?")).append(" of app ").append(r.path("appId").asText("?"))
        .append(", as of ").append(r.path("asOf").asText("?")).append('\n');
    b.append(devices).append(devices == 1 ? " device" : " devices").append(" last checked in on it: ")
        .append(r.path("otaDevices").asLong()).append(" over the air, ").append(r.path("embeddedDevices").asLong())
        .append(" on their embedded bundle, ").append(r.path("unknownDevices").asLong()).append(" reported no update\n");
    b.append("launches since ").append(r.path("since7d").asText("?")).append(": ").append(r.path("launches7d").asLong()).append(" (")
        .append(r.path("otaLaunches7d").asLong()).append(" over the air, ").append(r.path("embeddedLaunches7d").asLong())
        .append(" embedded)\n");
    if (r.path("updates").isEmpty()) {
      b.append("no device has checked in on this channel yet");
      return b.toString();
    }
    String fmt = "%-9s %-36s %8s %9s %13s %8s%n";
    b.append(String.format(Locale.ROOT, fmt, "PLATFORM", "UPDATE", "DEVICES", "EMBEDDED", "OVER THE AIR", "SHARE"));
    for (JsonNode u : r.path("updates")) {
      b.append(String.format(Locale.ROOT, fmt, u.path("platform").asText("?"),
          u.path("updateId").isNull() ? "(none reported)" : u.path("updateId").asText(), u.path("devices").asLong(),
          u.path("embeddedDevices").asLong(), u.path("otaDevices").asLong(), percent(u.path("sharePercent"))));
    }
    return b.toString().stripTrailing();
  }

  /** {@code GET /v1/apps/{app}/devices/{clientId}}: the explanation, then the fields. */
  static String device(JsonNode d) {
    StringBuilder b = new StringBuilder();
    b.append(d.path("explanation").asText("(no explanation recorded)")).append("\n\n");
    JsonNode s = d.path("served");
    field(b, "client id", d.path("clientId").asText("?"));
    field(b, "platform", d.path("platform").asText("?"));
    field(b, "runtime version", text(d.path("runtimeVersion"), "(none sent)"));
    field(b, "channel", text(d.path("channel"), "(none sent)"));
    String source = d.path("source").asText("");
    field(b, "runs", text(d.path("currentUpdateId"), "(no update reported)")
        + (source.equals("embedded") ? " (its embedded bundle)" : source.equals("ota") ? " (over the air)" : ""));
    field(b, "embedded update", text(d.path("embeddedUpdateId"), "(none sent)"));
    StringBuilder failed = new StringBuilder();
    for (JsonNode f : d.path("failedUpdateIds")) {
      failed.append(failed.length() == 0 ? "" : ", ").append(f.asText());
    }
    field(b, "reported failed", failed.length() == 0 ? "none" : failed.toString());
    field(b, "last fatal error", d.path("fatalError").isNull() || d.path("fatalError").isMissingNode() ? "none"
        : d.path("fatalError").asText() + " (" + d.path("fatalErrorAt").asText("?") + ")");
    field(b, "first seen", d.path("firstSeen").asText("?"));
    field(b, "last seen", d.path("lastSeen").asText("?"));
    field(b, "check-ins", Long.toString(d.path("checkIns").asLong()));
    field(b, "edge", text(d.path("edgeId"), "?"));
    field(b, "served", s.path("outcome").asText("?") + " (" + s.path("reason").asText("?") + ")"
        + (s.path("updateId").isNull() || s.path("updateId").isMissingNode() ? "" : ": update " + s.path("updateId").asText())
        + (s.path("groupId").isNull() || s.path("groupId").isMissingNode() ? "" : " of group " + s.path("groupId").asText()));
    field(b, "filters sent", text(s.path("filters"), "none (the device keeps the filters it stored)"));
    field(b, "branch", text(s.path("branch"), "(unknown)") + (s.path("inBranchRollout").asBoolean() ? " (via the channel's branch rollout)" : ""));
    field(b, "rollout bucket", s.path("rolloutBucket").isNull() || s.path("rolloutBucket").isMissingNode() ? "none (no per-update rollout consulted)"
        : s.path("rolloutBucket").asInt() + " of 0-9999");
    return b.toString().stripTrailing();
  }

  private static void field(StringBuilder b, String name, String value) {
    b.append(String.format(Locale.ROOT, "%-17s %s%n", name, value));
  }

  private static String text(JsonNode n, String absent) {
    return n == null || n.isNull() || n.isMissingNode() ? absent : n.asText();
  }

  private static String percent(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? "-" : String.format(Locale.ROOT, "%.1f %%", n.asDouble());
  }

  /** The refused requests: one sentence per (reason, runtime version, embedded update), most devices first. */
  static String refusals(JsonNode r) {
    StringBuilder b = new StringBuilder();
    for (JsonNode n : r.get("items")) {
      b.append(n.get("summary").asText()).append("  (").append(n.get("reason").asText()).append(", last ")
          .append(n.get("lastSeen").asText()).append(")\n");
    }
    return b.length() == 0 ? "no refused requests" : b.toString().stripTrailing();
  }
}
