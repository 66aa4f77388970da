package dev.updraft.load.run;

import dev.updraft.load.traffic.Profile;
import dev.updraft.load.traffic.Windows.Window;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Every {@code --interval}: pulls the lanes' interval histograms and the counters, adds the interval's
 * rows to the time series (rates, errors, drops, per-interval latency percentiles, in flight, targets
 * down), keeps the cumulative histograms the summary reads, and prints progress. Its thread is the only
 * reader of the lanes' recorders; {@link #tick} is synchronized for the last tick from the run's thread.
 */
final class IntervalReporter implements Runnable {
  private final LoadRun run;
  private final Histogram[] windowCum;
  private final Histogram[] serviceCum;
  private final Histogram[] assetCum;
  private final Histogram scratch = Stats.newHistogram();
  private final Map<String, double[]> lastCounts = new LinkedHashMap<>();
  final AtomicLong peakInFlight = new AtomicLong();
  private double lastTick;
  private double lastProgress;

  IntervalReporter(LoadRun run) {
    this.run = run;
    windowCum = new Histogram[run.stats.windows.size()];
    for (int i = 0; i < windowCum.length; i++) {
      windowCum[i] = Stats.newHistogram();
    }
    int phases = run.config.profile().phases().size();
    serviceCum = new Histogram[phases];
    assetCum = new Histogram[phases];
    for (int i = 0; i < phases; i++) {
      serviceCum[i] = Stats.newHistogram();
      assetCum[i] = Stats.newHistogram();
    }
  }

  Histogram windowHistogram(int w) {
    return windowCum[w];
  }

  Histogram serviceHistogram(int phase) {
    return serviceCum[phase];
  }

  Histogram assetHistogram(int phase) {
    return assetCum[phase];
  }

  /** The phase's latency histogram: its windows merged (-1: every phase). */
  Histogram phaseHistogram(int phase) {
    Histogram h = Stats.newHistogram();
    for (Window w : run.stats.windows) {
      if (phase < 0 || w.phase() == phase) {
        h.add(windowCum[w.index()]);
      }
    }
    return h;
  }

  @Override
  public void run() {
    long period = run.config.interval().toNanos();
    long next = run.startNanos + period;
    while (!run.finished) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          return;
        }
      }
      if (run.finished) {
        return;
      }
      tick((next - run.startNanos) / 1e9, false);
      next += period;
    }
  }

  /** Pulls the interval histograms and counters, writes one interval of rows, prints progress. */
  synchronized void tick(double t, boolean last) {
    double dt = t - lastTick;
    if (dt <= 0) {
      return;
    }
    Histogram[] interval = pull();
    Profile profile = run.config.profile();
    StringBuilder progress = new StringBuilder();
    for (int p = 0; p < profile.phases().size(); p++) {
      phaseRows(t, dt, p, interval[p], progress);
    }
    long inflight = run.totalInFlight();
    peakInFlight.accumulateAndGet(inflight, Math::max);
    Timeseries ts = run.ts;
    ts.add(t, "generator", "in_flight", Timeseries.scenarioAt(profile, t), inflight);
    for (Targets.Target tg : run.targets.all) {
      if (run.targets.all.size() > 1 || tg.down) {
        ts.add(t, "target" + tg.index, "down", Timeseries.scenarioAt(profile, t), tg.down ? 1 : 0);
      }
    }
    lastTick = t;
    if (run.out != null && (last || t - lastProgress >= run.config.progress().toMillis() / 1000.0 - 1e-9)) {
      lastProgress = t;
      run.out.println(String.format(Locale.ROOT, "[%s %6.1fs]%s in-flight %d%s", run.label, t,
          progress.length() == 0 ? " | idle" : progress.toString(), inflight, run.targets.anyDown() ? " | a target is DOWN" : ""));
    }
  }

  /** Moves the lanes' interval histograms into the cumulative ones; returns this interval's latency per phase. */
  private Histogram[] pull() {
    Stats stats = run.stats;
    int phases = run.config.profile().phases().size();
    Histogram[] interval = new Histogram[phases];
    for (int p = 0; p < phases; p++) {
      interval[p] = Stats.newHistogram();
    }
    for (int l = 0; l < stats.lanes; l++) {
      for (Window w : stats.windows) {
        stats.latency[l][w.index()].getIntervalHistogramInto(scratch);
        if (scratch.getTotalCount() > 0) {
          windowCum[w.index()].add(scratch);
          interval[w.phase()].add(scratch);
        }
      }
      for (int p = 0; p < phases; p++) {
        stats.service[l][p].getIntervalHistogramInto(scratch);
        serviceCum[p].add(scratch);
        stats.asset[l][p].getIntervalHistogramInto(scratch);
        assetCum[p].add(scratch);
      }
    }
    return interval;
  }

  /** One phase's rows of the interval ending at {@code t}, when it was active; its progress column. */
  private void phaseRows(double t, double dt, int p, Histogram h, StringBuilder progress) {
    Stats stats = run.stats;
    Profile.Phase ph = run.config.profile().phases().get(p);
    double target = (ph.countUntil(t) - ph.countUntil(lastTick)) / dt;
    double[] now = {
      stats.phaseSum(p, Stats.SENT), stats.phaseSum(p, Stats.RESPONSES), stats.phaseErrors(p),
      stats.phaseSum(p, Stats.DROP_LATE) + stats.phaseSum(p, Stats.DROP_INFLIGHT), stats.phaseSum(p, Stats.ASSETS)
    };
    double[] before = lastCounts.getOrDefault(ph.name(), new double[now.length]);
    lastCounts.put(ph.name(), now);
    boolean active = target > 0 || now[0] != before[0] || now[1] != before[1] || now[2] != before[2] || now[3] != before[3];
    if (!active) {
      return;
    }
    String sc = ph.name();
    String src = "generator";
    Timeseries ts = run.ts;
    ts.add(t, src, "target_rps", sc, target);
    ts.add(t, src, "sent_rps", sc, (now[0] - before[0]) / dt);
    ts.add(t, src, "completed_rps", sc, (now[1] - before[1]) / dt);
    ts.add(t, src, "errors", sc, now[2] - before[2]);
    ts.add(t, src, "dropped", sc, now[3] - before[3]);
    if (now[4] != before[4]) {
      ts.add(t, src, "asset_rps", sc, (now[4] - before[4]) / dt);
    }
    if (h.getTotalCount() > 0) {
      ts.add(t, src, "latency_mean_ms", sc, h.getMean() / 1000.0);
      ts.add(t, src, "latency_p50_ms", sc, h.getValueAtPercentile(50) / 1000.0);
      ts.add(t, src, "latency_p95_ms", sc, h.getValueAtPercentile(95) / 1000.0);
      ts.add(t, src, "latency_p99_ms", sc, h.getValueAtPercentile(99) / 1000.0);
      ts.add(t, src, "latency_max_ms", sc, h.getMaxValue() / 1000.0);
    }
    progress.append(String.format(Locale.ROOT, " | %s target %.0f/s sent %.0f/s p99 %s errors %d drops %d",
        ph.name(), target, (now[0] - before[0]) / dt,
        h.getTotalCount() > 0 ? String.format(Locale.ROOT, "%.2f ms", h.getValueAtPercentile(99) / 1000.0) : "-",
        (long) now[2], (long) now[3]));
  }
}
