package dev.updraft.load.report;

import static dev.updraft.load.report.Numbers.round;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.load.run.RunResult;
import dev.updraft.load.run.ServerHistogram;
import dev.updraft.load.run.Timeseries;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The summary's {@code results.server_latency} (each server's own latency histogram: per phase and per second, the
 * second judged from its own scrape, not from the generator) and {@code results.cpu_per_request} (each sampled
 * process's CPU time per request of the run, microseconds: the edge's next to the generator's, the dev stack's and
 * PostgreSQL's).
 */
final class ServerSide {
  /** The per-second bound judged in {@code seconds_over}: xprem's 5 ms. */
  static final double BOUND_MS = 5.0;

  private ServerSide() {}

  static void write(ObjectNode results, RunResult run) {
    Map<String, Map<String, ServerHistogram>> served = run.serverLatency();
    if (!served.isEmpty()) {
      ObjectNode o = results.putObject("server_latency");
      o.put("what", "each server's own request-time histogram (request to response written; Prometheus buckets, so the"
          + " percentiles are the bucket bound at or above them), the difference of two scrapes a second apart");
      for (Map.Entry<String, Map<String, ServerHistogram>> e : served.entrySet()) {
        ObjectNode src = o.putObject(e.getKey());
        for (Map.Entry<String, ServerHistogram> p : e.getValue().entrySet()) {
          histogram(src.putObject(p.getKey()), p.getValue());
        }
        perSecond(src.putObject("per_second"), run.timeseries().rows(), e.getKey());
      }
    }
    Map<String, Double> cpu = cpuMicrosPerRequest(run.timeseries().rows(), sent(run));
    if (!cpu.isEmpty()) {
      ObjectNode c = results.putObject("cpu_us_per_request");
      cpu.forEach((k, v) -> c.put(k, round(v)));
    }
  }

  private static long sent(RunResult run) {
    return run.stats().phaseSum(-1, dev.updraft.load.run.Stats.SENT);
  }

  static void histogram(ObjectNode o, ServerHistogram h) {
    o.put("requests", h.count());
    if (h.count() > 0) {
      bound(o, "p50_at_most_ms", h.quantileUpperBoundMs(0.50));
      bound(o, "p99_at_most_ms", h.quantileUpperBoundMs(0.99));
      bound(o, "p999_at_most_ms", h.quantileUpperBoundMs(0.999));
      o.put("share_at_most_5ms", Numbers.round6(h.shareAtOrUnderMs(BOUND_MS)));
    }
  }

  /** From the rows {@code server_p99_ms} of one source: the first second's, the worst, and how many exceed 5 ms. */
  static void perSecond(ObjectNode o, List<Timeseries.Row> rows, String source) {
    double first = Double.NaN;
    double worst = Double.NaN;
    double worstAt = Double.NaN;
    int seconds = 0;
    int over = 0;
    for (Timeseries.Row r : rows) {
      if (!r.source().equals(source) || !r.metric().equals("server_p99_ms")) {
        continue;
      }
      seconds++;
      if (Double.isNaN(first)) {
        first = r.value();
      }
      if (Double.isNaN(worst) || r.value() > worst) {
        worst = r.value();
        worstAt = r.t();
      }
      if (r.value() > BOUND_MS) {
        over++;
      }
    }
    o.put("seconds", seconds);
    if (seconds > 0) {
      bound(o, "first_p99_at_most_ms", first);
      bound(o, "worst_p99_at_most_ms", worst);
      o.put("worst_at_s", round(worstAt));
      o.put("seconds_over_5ms", over);
    }
  }

  /** A bucket bound in ms, or the text {@code over the largest bucket} for +Inf (JSON has no infinity). */
  static void bound(ObjectNode o, String key, double ms) {
    if (Double.isInfinite(ms)) {
      o.put(key, "over the largest bucket");
    } else {
      o.put(key, round(ms));
    }
  }

  /**
   * Per sampled process (the {@code cpu_seconds} rows of each source: the last sample less the first), its CPU time
   * in microseconds per request sent in the run; empty without samples or requests.
   */
  static Map<String, Double> cpuMicrosPerRequest(List<Timeseries.Row> rows, long requests) {
    Map<String, double[]> firstLast = new LinkedHashMap<>();
    for (Timeseries.Row r : rows) {
      if (r.metric().equals("cpu_seconds")) {
        double[] fl = firstLast.computeIfAbsent(r.source(), k -> new double[] {r.value(), r.value()});
        fl[1] = r.value();
      }
    }
    Map<String, Double> out = new LinkedHashMap<>();
    if (requests <= 0) {
      return out;
    }
    firstLast.forEach((k, fl) -> out.put(k, (fl[1] - fl[0]) * 1e6 / requests));
    return out;
  }
}
