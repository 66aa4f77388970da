package dev.updraft.load.report;

import static dev.updraft.load.report.Numbers.ms;
import static dev.updraft.load.report.Numbers.round;
import static dev.updraft.load.report.Numbers.round6;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.load.run.RunResult;
import dev.updraft.load.run.Stats;
import dev.updraft.load.traffic.Windows.Window;
import java.util.ArrayList;
import java.util.List;

/**
 * The capacity found on the hold windows of a run. Every hold (a stage at constant rate) is judged: it
 * passes with no drops, an error rate at most {@code --max-error-rate}, p99 at most {@code --knee-p99}
 * and at least 97 % of the target rate achieved. The highest passing hold is the sustained rate; the
 * knee is the first failing hold above it. Failing holds below it (a transient stall, for example
 * another process taking the cores) are counted and listed, not hidden.
 *
 * @param holds one JSON object per hold, in rate order
 */
public record Capacity(boolean kneeFound, double sustainedRps, double kneeAtRps, String kneeReason, List<ObjectNode> holds,
    int failedHoldsBelow) {

  /** Typical and chatty traffic models (xprem's): req/s at peak per 1M monthly active users. */
  static final double TYPICAL_RPS_PER_1M_MAU = 20;
  static final double CHATTY_RPS_PER_1M_MAU = 115;

  /** Judges the holds of {@code run}. */
  public static Capacity of(RunResult run) {
    Stats st = run.stats();
    List<ObjectNode> holds = new ArrayList<>();
    List<Window> ws = new ArrayList<>(st.windows());
    ws.removeIf(w -> !w.hold() || w.rateTo() <= 0);
    ws.sort((a, b) -> Double.compare(a.rateTo(), b.rateTo()));
    double sustained = 0;
    List<Double> failures = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (Window w : ws) {
      String fail = judge(run, w);
      ObjectNode n = hold(run, w);
      n.put("pass", fail == null);
      if (fail != null) {
        n.put("why", fail);
        failures.add(w.rateTo());
        reasons.add(fail);
      } else {
        sustained = Math.max(sustained, w.rateTo());
      }
      holds.add(n);
    }
    double kneeAt = Double.NaN;
    String reason = null;
    int below = 0;
    for (int i = 0; i < failures.size(); i++) {
      double r = failures.get(i);
      if (r > sustained && Double.isNaN(kneeAt)) {
        kneeAt = r;
        reason = reasons.get(i);
      } else if (r < sustained) {
        below++;
      }
    }
    return new Capacity(sustained > 0 && !Double.isNaN(kneeAt), sustained, kneeAt, reason, holds, below);
  }

  /** Why the hold fails, or null when it passes. */
  private static String judge(RunResult run, Window w) {
    Stats st = run.stats();
    double p99Limit = run.config().kneeP99().toNanos() / 1e6;
    long sent = st.get(w.index(), Stats.SENT);
    long drops = st.get(w.index(), Stats.DROP_LATE) + st.get(w.index(), Stats.DROP_INFLIGHT);
    long errs = st.errors(w.index());
    double achieved = st.get(w.index(), Stats.RESPONSES) / (w.endS() - w.startS());
    double p99 = ms(run.windowHistogram(w.index()), 99);
    if (drops > 0) {
      return drops + " dropped";
    } else if (sent > 0 && (double) errs / sent > run.config().maxErrorRate()) {
      return "error rate " + round6((double) errs / sent);
    } else if (p99 > p99Limit) {
      return "p99 " + p99 + " ms > " + p99Limit + " ms";
    } else if (achieved < 0.97 * w.rateTo()) {
      return "achieved " + round(achieved) + " req/s < 97% of " + round(w.rateTo());
    }
    return null;
  }

  private static ObjectNode hold(RunResult run, Window w) {
    Stats st = run.stats();
    ObjectNode n = Summary.JSON.createObjectNode();
    n.put("phase", w.phaseName());
    n.putArray("window_s").add(round(w.startS())).add(round(w.endS()));
    n.put("target_rps", round(w.rateTo()));
    n.put("achieved_rps", round(st.get(w.index(), Stats.RESPONSES) / (w.endS() - w.startS())));
    n.put("p50_ms", ms(run.windowHistogram(w.index()), 50));
    n.put("p99_ms", ms(run.windowHistogram(w.index()), 99));
    n.put("errors", st.errors(w.index()));
    n.put("dropped", st.get(w.index(), Stats.DROP_LATE) + st.get(w.index(), Stats.DROP_INFLIGHT));
    return n;
  }

  /**
   * Drops that make a run invalid: every drop, except in a knee search, where drops after the last
   * passing hold are part of finding the knee (the server fell behind), not a failure of the generator.
   */
  public static long invalidatingDrops(RunResult run) {
    long total = Numbers.dropped(run.stats(), -1);
    if (total == 0 || !run.config().profile().name().equals("knee")) {
      return total;
    }
    Capacity cap = of(run);
    if (!cap.kneeFound()) {
      return total;
    }
    double lastGoodEnd = 0;
    for (Window w : run.stats().windows()) {
      if (w.hold() && w.rateTo() == cap.sustainedRps()) {
        lastGoodEnd = w.endS();
      }
    }
    long n = 0;
    for (Window w : run.stats().windows()) {
      if (w.endS() <= lastGoodEnd + 1e-9) {
        n += run.stats().get(w.index(), Stats.DROP_LATE) + run.stats().get(w.index(), Stats.DROP_INFLIGHT);
      }
    }
    return n;
  }

  /** The summary's {@code capacity} section. */
  void writeTo(ObjectNode o, RunResult run) {
    o.put("knee_found", kneeFound);
    o.put("measured_sustained_rps", round(sustainedRps));
    if (kneeFound) {
      o.put("knee_at_rps", round(kneeAtRps));
      o.put("knee_reason", kneeReason);
    } else {
      o.put("note", "no knee within the profile: the sustained rate is a floor, not the ceiling");
    }
    o.put("failed_holds_below_sustained", failedHoldsBelow);
    o.put("measured_burst_rps", round(Results.peakByScenario(run.timeseries(), "generator", "completed_rps").values().stream()
        .mapToDouble(Double::doubleValue).max().orElse(0)));
    ObjectNode crit = o.putObject("criteria");
    crit.put("p99_ms_max", run.config().kneeP99().toNanos() / 1e6);
    crit.put("error_rate_max", run.config().maxErrorRate());
    crit.put("dropped", 0);
    crit.put("achieved_min_share_of_target", 0.97);
    ObjectNode mau = o.putObject("mau_at_measured_capacity");
    mau.put("typical_model", Math.round(sustainedRps / TYPICAL_RPS_PER_1M_MAU * 1e6));
    mau.put("chatty_model", Math.round(sustainedRps / CHATTY_RPS_PER_1M_MAU * 1e6));
    ObjectNode margin = o.putObject("mau_with_3x_planning_margin");
    margin.put("typical_model", Math.round(sustainedRps / 3 / TYPICAL_RPS_PER_1M_MAU * 1e6));
    margin.put("chatty_model", Math.round(sustainedRps / 3 / CHATTY_RPS_PER_1M_MAU * 1e6));
    ArrayNode h = o.putArray("holds");
    holds.forEach(h::add);
  }
}
