package dev.updraft.load.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.load.run.Stats;
import org.HdrHistogram.Histogram;

/** How the summary writes numbers: milliseconds from microsecond histograms, rounded to 3 decimals. */
final class Numbers {
  private Numbers() {}

  /** count, mean, p50, p90, p95, p99, p999 and max of {@code h} (µs) in milliseconds. */
  static void latency(ObjectNode o, Histogram h) {
    o.put("count", h.getTotalCount());
    if (h.getTotalCount() == 0) {
      return;
    }
    o.put("mean", round(h.getMean() / 1000));
    o.put("p50", ms(h, 50));
    o.put("p90", ms(h, 90));
    o.put("p95", ms(h, 95));
    o.put("p99", ms(h, 99));
    o.put("p999", ms(h, 99.9));
    o.put("max", round(h.getMaxValue() / 1000.0));
  }

  static double ms(Histogram h, double pct) {
    return h.getTotalCount() == 0 ? 0 : round(h.getValueAtPercentile(pct) / 1000.0);
  }

  /** Drops of one phase (-1: all): late and over the in-flight cap. */
  static long dropped(Stats st, int phase) {
    return st.phaseSum(phase, Stats.DROP_LATE) + st.phaseSum(phase, Stats.DROP_INFLIGHT);
  }

  static double round(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return 0;
    }
    return Math.round(v * 1000) / 1000.0;
  }

  static double round6(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
