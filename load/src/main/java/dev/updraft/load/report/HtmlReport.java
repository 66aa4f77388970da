package dev.updraft.load.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.load.run.Timeseries;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a self-contained HTML report (inline CSS and SVG, no script, no external resource, so it opens
 * offline) from a summary JSON and its time series: the per-phase table, capacity, errors, targets, and
 * charts of latency percentiles, rates, server CPU and memory over time with the phases shaded.
 * Stateless.
 */
public final class HtmlReport {
  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

  private HtmlReport() {}

  record Series(String name, List<double[]> points) {}

  public static String render(JsonNode summary, Timeseries ts) {
    StringBuilder b = new StringBuilder(64 * 1024);
    head(b, summary);
    tables(b, summary);
    charts(b, summary, ts);
    capacity(b, summary);
    errorsAndTargets(b, summary.path("results"));
    generatorLimitsAndConfiguration(b, summary);
    b.append("</body></html>\n");
    return b.toString();
  }

  /** The page head, title and validity line. */
  private static void head(StringBuilder b, JsonNode summary) {
    JsonNode run = summary.path("run");
    String title = "Updraft load: " + run.path("name").asText("run") + " (" + run.path("profile").asText("") + ")";
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>").append(esc(title)).append("</title>\n<style>")
        .append("body{font-family:system-ui,sans-serif;margin:24px;max-width:1000px;color:#222}")
        .append("table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .append("th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}")
        .append(".bad{color:#b00;font-weight:bold}.good{color:#070;font-weight:bold}svg{background:#fff;border:1px solid #ddd;margin:6px 0}")
        .append("</style></head><body>\n");
    b.append("<h1>").append(esc(title)).append("</h1>\n");
    boolean valid = run.path("valid").asBoolean(true);
    b.append("<p class=\"").append(valid ? "good" : "bad").append("\">")
        .append(valid ? "VALID run: no request dropped by the generator." : "INVALID run: " + esc(run.path("invalid_reason").asText()))
        .append("</p>\n");
    b.append("<p>").append(esc(run.path("profile_description").asText(""))).append("<br/>Date ").append(esc(run.path("date").asText("")))
        .append(", duration ").append(num(run.path("duration_seconds").asDouble())).append(" s. Command: <code>")
        .append(esc(run.path("command").asText(""))).append("</code></p>\n");
  }

  /** Totals and per-phase tables. */
  private static void tables(StringBuilder b, JsonNode summary) {
    JsonNode results = summary.path("results");
    JsonNode totals = results.path("totals");
    b.append("<h2>Totals</h2><table><tr><th>sent</th><th>ok</th><th>errors</th><th>error rate</th><th>dropped</th><th>manifests</th><th>no update</th><th>p50 ms</th><th>p99 ms</th><th>max ms</th></tr><tr>")
        .append(td(totals.path("requests_sent"))).append(td(totals.path("ok"))).append(td(totals.path("errors")))
        .append(td(totals.path("error_rate"))).append(td(totals.path("dropped"))).append(td(totals.path("manifests_served")))
        .append(td(totals.path("no_update_served"))).append(td(totals.path("latency_ms").path("p50")))
        .append(td(totals.path("latency_ms").path("p99"))).append(td(totals.path("latency_ms").path("max"))).append("</tr></table>\n");

    b.append("<h2>Per phase</h2><table><tr><th>phase</th><th>target peak req/s</th><th>achieved peak req/s</th><th>sent</th><th>errors</th><th>dropped</th><th>mean ms</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr>\n");
    Iterator<Map.Entry<String, JsonNode>> it = results.path("per_phase").properties().iterator();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode p = e.getValue();
      JsonNode l = p.path("latency_ms");
      b.append("<tr><td>").append(esc(e.getKey())).append("</td>").append(td(p.path("target_peak_rps"))).append(td(p.path("peak_rps")))
          .append(td(p.path("sent"))).append(td(p.path("errors"))).append(td(p.path("dropped"))).append(td(l.path("mean")))
          .append(td(l.path("p50"))).append(td(l.path("p95"))).append(td(l.path("p99"))).append(td(l.path("max"))).append("</tr>\n");
    }
    b.append("</table>\n");
  }

  /** The five charts, phases shaded. */
  private static void charts(StringBuilder b, JsonNode summary, Timeseries ts) {
    List<double[]> bands = new ArrayList<>();
    List<String> bandNames = new ArrayList<>();
    for (JsonNode ph : summary.path("phases")) {
      bands.add(new double[] {ph.path("window_s").path(0).asDouble(), ph.path("window_s").path(1).asDouble()});
      bandNames.add(ph.path("name").asText());
    }
    List<Timeseries.Row> rows = ts.rows();
    b.append("<h2>Latency per interval (from the intended send time)</h2>\n");
    b.append(chart("latency ms", series(rows, "generator", new String[] {"latency_p50_ms", "latency_p95_ms", "latency_p99_ms"}, true), bands, bandNames));
    b.append("<h2>Request rate</h2>\n");
    b.append(chart("req/s", series(rows, "generator", new String[] {"target_rps", "completed_rps"}, true), bands, bandNames));
    b.append("<h2>Errors and drops per interval</h2>\n");
    b.append(chart("count", series(rows, "generator", new String[] {"errors", "dropped"}, true), bands, bandNames));
    b.append("<h2>CPU (cores) of each process</h2>\n");
    b.append(chart("cores", bySource(rows, "cpu_cores", "generator"), bands, bandNames));
    b.append("<h2>Memory (MB)</h2>\n");
    List<Series> mem = bySource(rows, "rss_mb", null);
    mem.addAll(bySource(rows, "heap_mb", null));
    b.append(chart("MB", mem, bands, bandNames));
  }

  /** Capacity with its holds, then the baseline ratio. */
  private static void capacity(StringBuilder b, JsonNode summary) {
    JsonNode cap = summary.path("capacity");
    b.append("<h2>Capacity</h2><p>Knee found: <b>").append(cap.path("knee_found").asBoolean()).append("</b>; sustained ")
        .append(num(cap.path("measured_sustained_rps").asDouble())).append(" req/s");
    if (cap.has("knee_at_rps")) {
      b.append("; knee at ").append(num(cap.path("knee_at_rps").asDouble())).append(" req/s (").append(esc(cap.path("knee_reason").asText())).append(")");
    }
    b.append(". MAU at this capacity: ").append(cap.path("mau_at_measured_capacity").path("typical_model").asLong())
        .append(" (typical model), ").append(cap.path("mau_at_measured_capacity").path("chatty_model").asLong()).append(" (chatty model).</p>\n");
    if (cap.path("holds").size() > 0) {
      b.append("<table><tr><th>phase</th><th>target req/s</th><th>achieved req/s</th><th>p99 ms</th><th>errors</th><th>dropped</th><th>pass</th></tr>\n");
      for (JsonNode h : cap.path("holds")) {
        b.append("<tr><td>").append(esc(h.path("phase").asText())).append("</td>").append(td(h.path("target_rps"))).append(td(h.path("achieved_rps")))
            .append(td(h.path("p99_ms"))).append(td(h.path("errors"))).append(td(h.path("dropped")))
            .append("<td>").append(h.path("pass").asBoolean() ? "yes" : "no: " + esc(h.path("why").asText())).append("</td></tr>\n");
      }
      b.append("</table>\n");
    }
    JsonNode baseline = summary.path("baseline");
    if (!baseline.isMissingNode()) {
      b.append("<h2>Baseline (machine ceiling)</h2><p>").append(esc(baseline.path("what").asText())).append(". Sustained ")
          .append(num(baseline.path("capacity").path("measured_sustained_rps").asDouble())).append(" req/s, knee found: ")
          .append(baseline.path("capacity").path("knee_found").asBoolean()).append(".</p><table>");
      Iterator<Map.Entry<String, JsonNode>> r = baseline.path("ratio").properties().iterator();
      while (r.hasNext()) {
        Map.Entry<String, JsonNode> e = r.next();
        b.append("<tr><td>").append(esc(e.getKey())).append("</td><td>").append(esc(e.getValue().asText())).append("</td></tr>");
      }
      b.append("</table>\n");
    }
  }

  private static void errorsAndTargets(StringBuilder b, JsonNode results) {
    b.append("<h2>Errors by kind</h2>");
    JsonNode errs = results.path("errors_by_kind");
    if (errs.size() == 0) {
      b.append("<p>None.</p>\n");
    } else {
      b.append("<table><tr><th>kind</th><th>count</th><th>first messages</th></tr>");
      Iterator<Map.Entry<String, JsonNode>> e = errs.properties().iterator();
      while (e.hasNext()) {
        Map.Entry<String, JsonNode> k = e.next();
        StringBuilder msgs = new StringBuilder();
        for (JsonNode m : results.path("error_samples").path(k.getKey())) {
          msgs.append(esc(m.asText())).append("<br/>");
        }
        b.append("<tr><td>").append(esc(k.getKey())).append("</td>").append(td(k.getValue())).append("<td style=\"text-align:left\">")
            .append(msgs).append("</td></tr>");
      }
      b.append("</table>\n");
    }
    b.append("<h2>Targets</h2><table><tr><th>url</th><th>sent</th><th>errors</th><th>outages (start s, seconds until 200, failed requests)</th></tr>");
    for (JsonNode t : results.path("targets")) {
      StringBuilder o = new StringBuilder();
      for (JsonNode out : t.path("outages")) {
        o.append(num(out.path("start_s").asDouble())).append(" s, ")
            .append(out.has("seconds_until_200") ? num(out.path("seconds_until_200").asDouble()) + " s" : "never").append(", ")
            .append(out.path("failed_requests").asLong()).append("<br/>");
      }
      b.append("<tr><td>").append(esc(t.path("url").asText())).append("</td>").append(td(t.path("sent"))).append(td(t.path("errors")))
          .append("<td>").append(o.length() == 0 ? "none" : o.toString()).append("</td></tr>");
    }
    b.append("</table>\n");
  }

  private static void generatorLimitsAndConfiguration(StringBuilder b, JsonNode summary) {
    JsonNode results = summary.path("results");
    JsonNode gen = results.path("generator");
    b.append("<h2>Generator</h2><p>CPU ").append(num(gen.path("cpu_seconds").asDouble())).append(" s in total, mean ")
        .append(num(gen.path("cpu_cores_mean").asDouble())).append(" cores, peak ").append(num(gen.path("cpu_cores_peak").asDouble()))
        .append(" cores, ").append(num(gen.path("cpu_ms_per_1000_requests").asDouble())).append(" ms of CPU per 1,000 requests.</p>\n");
    b.append("<h2>Limits</h2><ul>");
    for (JsonNode l : summary.path("limits")) {
      b.append("<li>").append(esc(l.asText())).append("</li>");
    }
    b.append("</ul>\n<h2>Configuration</h2><pre>").append(esc(summary.path("configuration").toPrettyString())).append("</pre>\n");
  }

  private static List<Series> series(List<Timeseries.Row> rows, String source, String[] metrics, boolean perScenario) {
    Map<String, List<double[]>> m = new LinkedHashMap<>();
    for (String metric : metrics) {
      for (Timeseries.Row r : rows) {
        if (r.source().equals(source) && r.metric().equals(metric) && !Double.isNaN(r.value())) {
          String name = perScenario ? metric.replace("_ms", "").replace("latency_", "") + " " + r.scenario() : metric;
          m.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {r.t(), r.value()});
        }
      }
    }
    List<Series> out = new ArrayList<>();
    m.forEach((k, v) -> out.add(new Series(k, v)));
    return out;
  }

  private static List<Series> bySource(List<Timeseries.Row> rows, String metric, String unused) {
    Map<String, List<double[]>> m = new LinkedHashMap<>();
    for (Timeseries.Row r : rows) {
      if (r.metric().equals(metric) && !Double.isNaN(r.value())) {
        m.computeIfAbsent(r.source() + " " + metric, k -> new ArrayList<>()).add(new double[] {r.t(), r.value()});
      }
    }
    List<Series> out = new ArrayList<>();
    m.forEach((k, v) -> out.add(new Series(k, v)));
    return out;
  }

  /** A line chart as inline SVG, with the phases shaded and a legend. */
  public static String chart(String yLabel, List<Series> series, List<double[]> bands, List<String> bandNames) {
    int w = 960;
    int h = 280;
    int left = 60;
    int right = 10;
    int top = 10;
    int bottom = 40;
    double maxX = 1;
    double maxY = 0;
    for (Series s : series) {
      for (double[] p : s.points()) {
        maxX = Math.max(maxX, p[0]);
        maxY = Math.max(maxY, p[1]);
      }
    }
    for (double[] band : bands) {
      maxX = Math.max(maxX, band[1]);
    }
    if (series.isEmpty()) {
      return "<p><i>No data for this chart.</i></p>\n";
    }
    maxY = niceCeil(maxY <= 0 ? 1 : maxY * 1.05);
    double pw = w - left - right;
    double ph = h - top - bottom;
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"11\">", w, h + 18 * ((series.size() + 3) / 4), w, h + 18 * ((series.size() + 3) / 4)));
    for (int i = 0; i < bands.size(); i++) {
      double x0 = left + bands.get(i)[0] / maxX * pw;
      double x1 = left + bands.get(i)[1] / maxX * pw;
      b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" opacity=\"0.35\"/>", x0, top, Math.max(0, x1 - x0), ph, i % 2 == 0 ? "#e8eef8" : "#f8efe8"));
      b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#666\">%s</text>", x0 + 3, top + 12, esc(bandNames.get(i))));
    }
    for (int i = 0; i <= 5; i++) {
      double v = maxY * i / 5;
      double y = top + ph - ph * i / 5;
      b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>", left, y, w - right, y));
      b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", left - 4, y + 4, num(v)));
    }
    double step = niceStep(maxX / 8);
    for (double x = 0; x <= maxX + 1e-9; x += step) {
      double px = left + x / maxX * pw;
      b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", px, top + ph + 14, num(x)));
    }
    b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">seconds</text>", left + pw / 2, top + ph + 28));
    b.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" text-anchor=\"middle\">%s</text>", top + ph / 2, top + ph / 2, esc(yLabel)));
    b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>", left, top, pw, ph));
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      String color = COLORS[i % COLORS.length];
      StringBuilder pts = new StringBuilder();
      for (double[] p : s.points()) {
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + p[0] / maxX * pw, top + ph - Math.min(p[1], maxY) / maxY * ph));
      }
      b.append("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"").append(color).append("\" points=\"").append(pts.toString().trim()).append("\"/>");
      double lx = left + (i % 4) * 220;
      double ly = h + 4 + (i / 4) * 18;
      b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"4\" fill=\"%s\"/>", lx, ly + 4, color));
      b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", lx + 16, ly + 10, esc(s.name())));
    }
    b.append("</svg>\n");
    return b.toString();
  }

  static double niceCeil(double v) {
    double e = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * e >= v) {
        return m * e;
      }
    }
    return 10 * e;
  }

  static double niceStep(double v) {
    if (v <= 0) {
      return 1;
    }
    return niceCeil(v);
  }

  private static String td(JsonNode n) {
    return "<td>" + (n.isMissingNode() || n.isNull() ? "" : n.isNumber() ? num(n.asDouble()) : esc(n.asText())) + "</td>";
  }

  static String num(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.3g", v);
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
