package dev.updraft.load.report;

import static dev.updraft.load.report.Numbers.dropped;
import static dev.updraft.load.report.Numbers.latency;
import static dev.updraft.load.report.Numbers.ms;
import static dev.updraft.load.report.Numbers.round;
import static dev.updraft.load.report.Numbers.round6;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.run.Discovered;
import dev.updraft.load.run.RunResult;
import dev.updraft.load.run.Stats;
import dev.updraft.load.run.Targets;
import dev.updraft.load.run.Timeseries;
import dev.updraft.load.run.Trigger;
import dev.updraft.load.traffic.Profile;
import dev.updraft.load.traffic.Windows.Window;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The summary's {@code results} section of one run: totals, per phase, errors by kind and their first
 * messages, windows, server and generator samples, targets and outages, push visibility, discovery.
 */
final class Results {
  private Results() {}

  static void write(ObjectNode o, RunResult run) {
    totals(o.putObject("totals"), run);
    ObjectNode perPhase = o.putObject("per_phase");
    Map<String, Double> peakCompleted = peakByScenario(run.timeseries(), "generator", "completed_rps");
    for (int p = 0; p < run.config().profile().phases().size(); p++) {
      phase(perPhase, run, p, peakCompleted);
    }
    errorsByKind(o.putObject("errors_by_kind"), run.stats(), -1);
    ObjectNode samples = o.putObject("error_samples");
    for (Map.Entry<ErrorKind, List<String>> e : run.errorSamples().entrySet()) {
      ArrayNode a = samples.putArray(e.getKey().wire);
      e.getValue().forEach(a::add);
    }
    windows(o.putArray("windows"), run);
    serverSummary(o.putObject("server"), run.timeseries());
    if (!run.scrapeErrors().isEmpty()) {
      ObjectNode se = o.putObject("server_scrape_errors");
      run.scrapeErrors().forEach(se::put);
    }
    generator(o.putObject("generator"), run);
    ServerSide.write(o, run);
    targets(o.putArray("targets"), run);
    push(o.putObject("push"), run);
    ArrayNode disc = o.putArray("discovery");
    for (Discovered d : run.discovered()) {
      ObjectNode n = disc.addObject();
      n.put("key", d.key().label());
      if (d.updateId() != null) {
        n.put("update_id", d.updateId());
        n.put("created_at", d.createdAt());
      } else {
        n.put("update_id", (String) null);
        n.put("note", "no update published: devices run their embedded bundle");
      }
    }
  }

  private static void totals(ObjectNode totals, RunResult run) {
    Stats st = run.stats();
    long scheduled = 0;
    for (Profile.Phase p : run.config().profile().phases()) {
      scheduled += (long) Math.floor(p.totalCount() + 1e-9);
    }
    long sent = st.phaseSum(-1, Stats.SENT);
    long errors = st.phaseErrors(-1);
    totals.put("requests_scheduled", run.config().replayFile() != null ? st.phaseSum(-1, Stats.SENT) + dropped(st, -1) : scheduled);
    totals.put("requests_sent", sent);
    totals.put("responses", st.phaseSum(-1, Stats.RESPONSES));
    totals.put("ok", st.phaseSum(-1, Stats.OK));
    totals.put("errors", errors);
    totals.put("error_rate", sent == 0 ? 0 : round6((double) errors / sent));
    totals.put("dropped", dropped(st, -1));
    totals.put("dropped_late", st.phaseSum(-1, Stats.DROP_LATE));
    totals.put("dropped_in_flight_cap", st.phaseSum(-1, Stats.DROP_INFLIGHT));
    totals.put("manifests_served", st.phaseSum(-1, Stats.MANIFESTS));
    totals.put("no_update_served", st.phaseSum(-1, Stats.NO_UPDATES));
    long downloads = st.phaseSum(-1, Stats.ASSETS);
    totals.put("asset_downloads", downloads);
    totals.put("asset_bytes", st.assetBytes());
    totals.put("asset_patches", st.patches());
    totals.put("asset_patch_bytes", st.patchBytes());
    totals.put("bytes_per_updated_device", downloads == 0 ? 0 : st.assetBytes() / downloads);
    totals.put("stale_within_grace", st.phaseSum(-1, Stats.STALE));
    totals.put("fresh_installs_simulated", st.phaseSum(-1, Stats.FRESH_INSTALLS));
    totals.put("peak_in_flight", run.peakInFlight());
    latency(totals.putObject("latency_ms"), run.phaseHistogram(-1));
  }

  private static void phase(ObjectNode perPhase, RunResult run, int p, Map<String, Double> peakCompleted) {
    Stats st = run.stats();
    Profile.Phase ph = run.config().profile().phases().get(p);
    ObjectNode n = perPhase.putObject(ph.name());
    double peakTarget = ph.startRate();
    for (Profile.Stage s : ph.stages()) {
      peakTarget = Math.max(peakTarget, s.target());
    }
    n.put("target_peak_rps", round(peakTarget));
    n.put("peak_rps", round(peakCompleted.getOrDefault(ph.name(), 0.0)));
    long psent = st.phaseSum(p, Stats.SENT);
    n.put("mean_rps", round(psent / ph.durationS()));
    n.put("sent", psent);
    n.put("ok", st.phaseSum(p, Stats.OK));
    n.put("errors", st.phaseErrors(p));
    n.put("dropped", dropped(st, p));
    n.put("manifests_served", st.phaseSum(p, Stats.MANIFESTS));
    n.put("no_update_served", st.phaseSum(p, Stats.NO_UPDATES));
    Histogram h = run.phaseHistogram(p);
    latency(n.putObject("latency_ms"), h);
    n.put("p95_ms", ms(h, 95));
    n.put("p99_ms", ms(h, 99));
    n.put("mean_ms", h.getTotalCount() == 0 ? 0 : round(h.getMean() / 1000));
    n.put("max_ms", round(h.getMaxValue() / 1000.0));
    latency(n.putObject("service_time_ms"), run.serviceHistogram(p));
    if (run.assetHistogram(p).getTotalCount() > 0) {
      latency(n.putObject("asset_latency_ms"), run.assetHistogram(p));
      n.put("asset_downloads", st.phaseSum(p, Stats.ASSETS));
    }
    errorsByKind(n.putObject("errors_by_kind"), st, p);
  }

  /** The error counts by kind of one phase (-1: all), kinds with none left out. */
  private static void errorsByKind(ObjectNode ek, Stats st, int phase) {
    for (ErrorKind k : ErrorKind.ALL) {
      long v = 0;
      for (Window w : st.windows()) {
        if (phase < 0 || w.phase() == phase) {
          v += st.get(w.index(), Stats.ERR + k.ordinal());
        }
      }
      if (v > 0) {
        ek.put(k.wire, v);
      }
    }
  }

  private static void windows(ArrayNode windows, RunResult run) {
    Stats st = run.stats();
    for (Window w : st.windows()) {
      ObjectNode n = windows.addObject();
      n.put("phase", w.phaseName());
      n.put("stage", w.stage());
      n.putArray("window_s").add(round(w.startS())).add(round(w.endS()));
      n.put("target_rps_from", round(w.rateFrom()));
      n.put("target_rps_to", round(w.rateTo()));
      long ws = st.get(w.index(), Stats.SENT);
      n.put("sent", ws);
      n.put("achieved_rps", round(st.get(w.index(), Stats.RESPONSES) / (w.endS() - w.startS())));
      n.put("errors", st.errors(w.index()));
      n.put("dropped", st.get(w.index(), Stats.DROP_LATE) + st.get(w.index(), Stats.DROP_INFLIGHT));
      Histogram h = run.windowHistogram(w.index());
      n.put("p50_ms", ms(h, 50));
      n.put("p99_ms", ms(h, 99));
      n.put("max_ms", round(h.getMaxValue() / 1000.0));
    }
  }

  private static void generator(ObjectNode gen, RunResult run) {
    long sent = run.stats().phaseSum(-1, Stats.SENT);
    gen.put("cpu_seconds", round(run.generatorCpuSeconds()));
    gen.put("cpu_cores_mean", run.wallSeconds() > 0 ? round(run.generatorCpuSeconds() / run.wallSeconds()) : 0);
    Map<String, Double> peaks = peakBySource(run.timeseries(), "cpu_cores");
    gen.put("cpu_cores_peak", round(peaks.getOrDefault("generator", 0.0)));
    gen.put("cpu_ms_per_1000_requests", sent == 0 ? 0 : round(run.generatorCpuSeconds() * 1e6 / sent));
    gen.put("rss_mb_peak", round(peakBySource(run.timeseries(), "rss_mb").getOrDefault("generator", 0.0)));
  }

  private static void targets(ArrayNode targets, RunResult run) {
    for (Targets.Target t : run.targets()) {
      ObjectNode n = targets.addObject();
      n.put("url", t.base());
      n.put("sent", t.sent());
      n.put("errors", t.errors());
      ArrayNode outs = n.putArray("outages");
      for (Targets.Outage out : t.outages()) {
        ObjectNode on = outs.addObject();
        on.put("start_s", round(out.startS()));
        if (Double.isNaN(out.endS())) {
          on.putNull("end_s");
          on.put("note", "still down at the end of the run");
        } else {
          on.put("end_s", round(out.endS()));
          on.put("seconds_until_200", round(out.endS() - out.startS()));
        }
        on.put("failed_requests", out.failedRequests());
      }
    }
  }

  private static void push(ObjectNode push, RunResult run) {
    push.put("trigger_configured", run.config().trigger() != null && run.config().trigger().configured());
    if (!Double.isNaN(run.triggerFiredAtS())) {
      push.put("fired_at_s", round(run.triggerFiredAtS()));
      Trigger.Result tr = run.triggerResult();
      if (tr != null) {
        push.put("status", tr.status());
        push.put("call_seconds", round(tr.seconds()));
        if (tr.error() != null) {
          push.put("error", tr.error());
        }
      }
      ObjectNode vis = push.putObject("visible_after_s");
      run.visibleAfterS().forEach((k, v) -> vis.put(k, round(v)));
    }
    push.put("expected_update_switches_learned", run.learnedSwitches());
  }

  /** Per source and metric of the samplers: max, mean, first, last and the number of samples. */
  static void serverSummary(ObjectNode o, Timeseries ts) {
    Map<String, Map<String, List<Double>>> by = new LinkedHashMap<>();
    for (Timeseries.Row r : ts.rows()) {
      if (r.source().equals("generator") && !r.metric().equals("cpu_cores") && !r.metric().equals("rss_mb")) {
        continue;
      }
      if (r.source().startsWith("target") && r.metric().equals("down")) {
        continue;
      }
      by.computeIfAbsent(r.source(), k -> new LinkedHashMap<>()).computeIfAbsent(r.metric(), k -> new ArrayList<>()).add(r.value());
    }
    for (Map.Entry<String, Map<String, List<Double>>> s : by.entrySet()) {
      ObjectNode src = o.putObject(s.getKey());
      for (Map.Entry<String, List<Double>> m : s.getValue().entrySet()) {
        List<Double> v = m.getValue();
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        for (double d : v) {
          max = Math.max(max, d);
          sum += d;
        }
        ObjectNode n = src.putObject(m.getKey());
        n.put("max", round(max));
        n.put("mean", round(sum / v.size()));
        n.put("first", round(v.get(0)));
        n.put("last", round(v.get(v.size() - 1)));
        n.put("samples", v.size());
      }
    }
  }

  static Map<String, Double> peakByScenario(Timeseries ts, String source, String metric) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (Timeseries.Row r : ts.rows()) {
      if (r.source().equals(source) && r.metric().equals(metric)) {
        m.merge(r.scenario(), r.value(), Math::max);
      }
    }
    return m;
  }

  static Map<String, Double> peakBySource(Timeseries ts, String metric) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (Timeseries.Row r : ts.rows()) {
      if (r.metric().equals(metric)) {
        m.merge(r.source(), r.value(), Math::max);
      }
    }
    return m;
  }
}
