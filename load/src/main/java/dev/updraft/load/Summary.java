package dev.updraft.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Builds {@code <name>-summary.json} from finished runs, in the shape of xprem's summary (run,
 * configuration, traffic_model, phases, results, capacity, limits) plus what we add (errors by kind,
 * windows, targets and outages, push visibility, generator CPU, baseline and ratio).
 */
final class Summary {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Typical and chatty traffic models (xprem's): req/s at peak per 1M monthly active users. */
  static final double TYPICAL_RPS_PER_1M_MAU = 20;
  static final double CHATTY_RPS_PER_1M_MAU = 115;

  private Summary() {}

  /** The capacity found on the hold windows of a run. */
  record Capacity(boolean kneeFound, double sustainedRps, double kneeAtRps, String kneeReason, List<ObjectNode> holds,
      int failedHoldsBelow) {}

  static ObjectNode build(LoadRun run, LoadRun baseline, List<String> args, String command) {
    ObjectNode root = JSON.createObjectNode();
    RunConfig c = run.config;
    long dropped = invalidatingDrops(run);
    ObjectNode r = root.putObject("run");
    r.put("name", c.name());
    r.put("date", Instant.now().toString());
    r.put("start_epoch_ms", run.startEpochMillis);
    r.put("tool", "updraft load " + command);
    r.put("command", String.join(" ", args));
    r.put("profile", c.profile().name());
    r.put("profile_description", c.profile().description());
    r.put("duration_seconds", round(run.wallSeconds));
    r.put("valid", dropped == 0);
    if (dropped > 0) {
      r.put("invalid_reason", dropped + " requests dropped: the generator could not start them on time (more than "
          + c.maxLag().toMillis() + " ms late, or " + c.maxInFlight() + " in flight in one lane); the numbers understate the load");
    }
    configuration(root.putObject("configuration"), run);
    ObjectNode tm = root.putObject("traffic_model");
    tm.put("note", "expo-updates clients check for an update once per app launch (xprem's models)");
    ObjectNode typical = tm.putObject("typical_app");
    typical.put("dau_over_mau", 0.2).put("sessions_per_day", 2.5).put("peak_factor", 3).put("peak_rps_per_1m_mau", TYPICAL_RPS_PER_1M_MAU);
    ObjectNode chatty = tm.putObject("chatty_app");
    chatty.put("dau_over_mau", 0.5).put("sessions_per_day", 5).put("peak_factor", 4).put("peak_rps_per_1m_mau", CHATTY_RPS_PER_1M_MAU);
    ArrayNode phases = root.putArray("phases");
    for (Profile.Phase p : c.profile().phases()) {
      ObjectNode o = phases.addObject();
      o.put("name", p.name());
      o.putArray("window_s").add(round(p.startS())).add(round(p.endS()));
      ArrayNode targets = o.putArray("target_rps");
      for (Profile.Stage s : p.stages()) {
        targets.add(round(s.target()));
      }
      o.put("start_rps", round(p.startRate()));
      o.put("meaning", p.meaning());
      o.put("cohort", p.outdatedShare() >= 1 ? "100% outdated: every opener gets the full manifest"
          : Math.round((1 - p.outdatedShare()) * 100) + "% of requests from devices up to date");
      o.put("asset_follow_ups", p.assets());
    }
    results(root.putObject("results"), run);
    Capacity cap = capacity(run);
    capacityNode(root.putObject("capacity"), cap, run);
    if (baseline != null) {
      ObjectNode b = root.putObject("baseline");
      b.put("what", "the same generator against a trivial Vert.x server returning the bytes captured from the target");
      b.put("profile", baseline.config.profile().name());
      b.put("valid", invalidatingDrops(baseline) == 0);
      results(b.putObject("results"), baseline);
      Capacity bc = capacity(baseline);
      capacityNode(b.putObject("capacity"), bc, baseline);
      ObjectNode ratio = b.putObject("ratio");
      if (bc.sustainedRps() > 0) {
        ratio.put("capacity_vs_baseline", round(cap.sustainedRps() / bc.sustainedRps()));
        String note = bc.kneeFound() ? "target capacity / baseline capacity"
            : "the baseline reached no knee: its capacity is a floor, so this ratio is an upper bound";
        if (!cap.kneeFound()) {
          note += "; the target reached no knee in profile " + run.config.profile().name()
              + ": its sustained rate is a floor, so this ratio is a lower bound (run both with --profile knee for a ratio of ceilings)";
        }
        ratio.put("note", note);
      }
      double tc = cpuPerThousand(run, "target");
      double bcpu = cpuPerThousand(baseline, "baseline");
      if (!Double.isNaN(tc) && !Double.isNaN(bcpu) && bcpu > 0) {
        ratio.put("server_cpu_ms_per_1000_requests_target", round(tc));
        ratio.put("server_cpu_ms_per_1000_requests_baseline", round(bcpu));
        ratio.put("server_cpu_vs_baseline", round(tc / bcpu));
      }
    }
    limits(root.putArray("limits"), run, baseline);
    return root;
  }

  private static void configuration(ObjectNode o, LoadRun run) {
    RunConfig c = run.config;
    ArrayNode t = o.putArray("targets");
    c.targets().forEach(t::add);
    o.put("path", c.path());
    ObjectNode m = o.putObject("machine");
    m.put("cores", Runtime.getRuntime().availableProcessors());
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("memory_gib", round(osMemoryGib()));
    ObjectNode g = o.putObject("load_generator");
    g.put("placement", "same machine as the server (loopback)");
    g.put("model", "open: arrival times fixed by the profile; latency from the intended send time");
    g.put("arrivals", c.poisson() ? "poisson" : "uniform");
    g.put("event_loops", c.lanes());
    g.put("native_transport", run.nativeTransport);
    g.put("connections_per_event_loop", c.connections());
    g.put("max_in_flight_per_event_loop", c.maxInFlight());
    g.put("drop_when_late_ms", c.maxLag().toMillis());
    g.put("timeout_ms", c.timeout().toMillis());
    if (c.replayFile() == null) {
      ObjectNode f = o.putObject("device_pool");
      f.put("devices", c.devices());
      f.put("seed", c.seed());
      f.put("platforms", mix(c.platforms()));
      f.put("runtime_versions", mix(c.runtimes()));
      f.put("channels", mix(c.channels()));
      f.put("initially_up_to_date", c.upToDate());
      f.put("grace_ms", c.grace().toMillis());
      ObjectNode fe = o.putObject("features_requested");
      fe.put("code_signing", c.signature());
      fe.put("signature_verified", c.verifyCertificate() != null);
      fe.put("asset_hash_check", c.assetHash());
    } else {
      o.put("replay_file", c.replayFile().toString());
      o.put("replay_speed", c.replaySpeed());
    }
    ObjectNode tr = o.putObject("push_trigger");
    Trigger.Spec s = c.trigger();
    tr.put("configured", s != null && s.configured());
    if (s != null && s.configured()) {
      tr.put("method", s.method());
      tr.put("url", s.url());
      tr.put("at_s", round(c.profile().triggerAtS()));
    }
  }

  private static String mix(Fleet.Mix m) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < m.names().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(m.names().get(i)).append(':').append(Math.round(m.share(i) * 1000) / 10.0);
    }
    return b.toString();
  }

  private static void results(ObjectNode o, LoadRun run) {
    Stats st = run.stats;
    ObjectNode totals = o.putObject("totals");
    long scheduled = 0;
    for (Profile.Phase p : run.config.profile().phases()) {
      scheduled += (long) Math.floor(p.totalCount() + 1e-9);
    }
    long sent = st.phaseSum(-1, Stats.SENT);
    long errors = st.phaseErrors(-1);
    totals.put("requests_scheduled", run.config.replayFile() != null ? st.phaseSum(-1, Stats.SENT) + dropped(st, -1) : scheduled);
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
    totals.put("asset_downloads", st.phaseSum(-1, Stats.ASSETS));
    totals.put("stale_within_grace", st.phaseSum(-1, Stats.STALE));
    totals.put("fresh_installs_simulated", st.phaseSum(-1, Stats.FRESH_INSTALLS));
    totals.put("peak_in_flight", run.peakInFlight.get());
    latency(totals.putObject("latency_ms"), run.phaseHistogram(-1));
    ObjectNode perPhase = o.putObject("per_phase");
    Map<String, Double> peakCompleted = peakByScenario(run.ts, "generator", "completed_rps");
    for (int p = 0; p < run.config.profile().phases().size(); p++) {
      Profile.Phase ph = run.config.profile().phases().get(p);
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
      ObjectNode ek = n.putObject("errors_by_kind");
      for (ErrorKind k : ErrorKind.ALL) {
        long v = 0;
        for (Stats.Window w : st.windows) {
          if (w.phase() == p) {
            v += st.get(w.index(), Stats.ERR + k.ordinal());
          }
        }
        if (v > 0) {
          ek.put(k.wire, v);
        }
      }
    }
    ObjectNode ek = o.putObject("errors_by_kind");
    for (ErrorKind k : ErrorKind.ALL) {
      long v = 0;
      for (Stats.Window w : st.windows) {
        v += st.get(w.index(), Stats.ERR + k.ordinal());
      }
      if (v > 0) {
        ek.put(k.wire, v);
      }
    }
    ObjectNode samples = o.putObject("error_samples");
    for (Map.Entry<ErrorKind, List<String>> e : run.samples.byKind.entrySet()) {
      ArrayNode a = samples.putArray(e.getKey().wire);
      synchronized (e.getValue()) {
        e.getValue().forEach(a::add);
      }
    }
    ArrayNode windows = o.putArray("windows");
    for (Stats.Window w : st.windows) {
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
    serverSummary(o.putObject("server"), run.ts);
    if (run.sampler != null && !run.sampler.scrapeErrors().isEmpty()) {
      ObjectNode se = o.putObject("server_scrape_errors");
      run.sampler.scrapeErrors().forEach(se::put);
    }
    ObjectNode gen = o.putObject("generator");
    gen.put("cpu_seconds", round(run.generatorCpuSeconds));
    gen.put("cpu_cores_mean", run.wallSeconds > 0 ? round(run.generatorCpuSeconds / run.wallSeconds) : 0);
    Map<String, Double> peaks = peakBySource(run.ts, "cpu_cores");
    gen.put("cpu_cores_peak", round(peaks.getOrDefault("generator", 0.0)));
    gen.put("cpu_ms_per_1000_requests", sent == 0 ? 0 : round(run.generatorCpuSeconds * 1e6 / sent));
    gen.put("rss_mb_peak", round(peakBySource(run.ts, "rss_mb").getOrDefault("generator", 0.0)));
    ArrayNode targets = o.putArray("targets");
    for (Targets.Target t : run.targets.all) {
      ObjectNode n = targets.addObject();
      n.put("url", t.base);
      n.put("sent", t.sent.get());
      n.put("errors", t.errors.get());
      ArrayNode outs = n.putArray("outages");
      for (Targets.Outage out : t.outages) {
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
    ObjectNode push = o.putObject("push");
    push.put("trigger_configured", run.config.trigger() != null && run.config.trigger().configured());
    if (!Double.isNaN(run.triggerFiredAtS)) {
      push.put("fired_at_s", round(run.triggerFiredAtS));
      Trigger.Result tr = run.triggerResult;
      if (tr != null) {
        push.put("status", tr.status());
        push.put("call_seconds", round(tr.seconds()));
        if (tr.error() != null) {
          push.put("error", tr.error());
        }
      }
      ObjectNode vis = push.putObject("visible_after_s");
      run.visibleAfterS.forEach((k, v) -> vis.put(k, round(v)));
    }
    push.put("expected_update_switches_learned", run.expectations.learnedSwitches.get());
    ArrayNode disc = o.putArray("discovery");
    for (LoadRun.Discovered d : run.discovered) {
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

  /**
   * Drops that make a run invalid: every drop, except in a knee search, where drops after the last
   * passing hold are part of finding the knee (the server fell behind), not a failure of the generator.
   */
  static long invalidatingDrops(LoadRun run) {
    long total = dropped(run.stats, -1);
    if (total == 0 || !run.config.profile().name().equals("knee")) {
      return total;
    }
    Capacity cap = capacity(run);
    if (!cap.kneeFound()) {
      return total;
    }
    double lastGoodEnd = 0;
    for (Stats.Window w : run.stats.windows) {
      if (w.hold() && w.rateTo() == cap.sustainedRps()) {
        lastGoodEnd = w.endS();
      }
    }
    long n = 0;
    for (Stats.Window w : run.stats.windows) {
      if (w.endS() <= lastGoodEnd + 1e-9) {
        n += run.stats.get(w.index(), Stats.DROP_LATE) + run.stats.get(w.index(), Stats.DROP_INFLIGHT);
      }
    }
    return n;
  }

  static long dropped(Stats st, int phase) {
    return st.phaseSum(phase, Stats.DROP_LATE) + st.phaseSum(phase, Stats.DROP_INFLIGHT);
  }

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

  /**
   * Judges every hold (constant-rate stage) and finds the capacity: the highest passing hold is the
   * sustained rate; the knee is the first failing hold above it. Failing holds below it (a transient
   * stall, for example another process taking the cores) are counted and listed, not hidden.
   */
  static Capacity capacity(LoadRun run) {
    Stats st = run.stats;
    double p99Limit = run.config.kneeP99().toNanos() / 1e6;
    List<ObjectNode> holds = new ArrayList<>();
    List<Stats.Window> ws = new ArrayList<>(st.windows);
    ws.removeIf(w -> !w.hold() || w.rateTo() <= 0);
    ws.sort((a, b) -> Double.compare(a.rateTo(), b.rateTo()));
    double sustained = 0;
    List<double[]> failures = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (Stats.Window w : ws) {
      double dur = w.endS() - w.startS();
      long sent = st.get(w.index(), Stats.SENT);
      long drops = st.get(w.index(), Stats.DROP_LATE) + st.get(w.index(), Stats.DROP_INFLIGHT);
      long errs = st.errors(w.index());
      double achieved = st.get(w.index(), Stats.RESPONSES) / dur;
      double p99 = ms(run.windowHistogram(w.index()), 99);
      String fail = null;
      if (drops > 0) {
        fail = drops + " dropped";
      } else if (sent > 0 && (double) errs / sent > run.config.maxErrorRate()) {
        fail = "error rate " + round6((double) errs / sent);
      } else if (p99 > p99Limit) {
        fail = "p99 " + p99 + " ms > " + p99Limit + " ms";
      } else if (achieved < 0.97 * w.rateTo()) {
        fail = "achieved " + round(achieved) + " req/s < 97% of " + round(w.rateTo());
      }
      ObjectNode n = JSON.createObjectNode();
      n.put("phase", w.phaseName());
      n.putArray("window_s").add(round(w.startS())).add(round(w.endS()));
      n.put("target_rps", round(w.rateTo()));
      n.put("achieved_rps", round(achieved));
      n.put("p50_ms", ms(run.windowHistogram(w.index()), 50));
      n.put("p99_ms", p99);
      n.put("errors", errs);
      n.put("dropped", drops);
      n.put("pass", fail == null);
      if (fail != null) {
        n.put("why", fail);
        failures.add(new double[] {w.rateTo()});
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
      double r = failures.get(i)[0];
      if (r > sustained && Double.isNaN(kneeAt)) {
        kneeAt = r;
        reason = reasons.get(i);
      } else if (r < sustained) {
        below++;
      }
    }
    return new Capacity(sustained > 0 && !Double.isNaN(kneeAt), sustained, kneeAt, reason, holds, below);
  }

  private static void capacityNode(ObjectNode o, Capacity cap, LoadRun run) {
    o.put("knee_found", cap.kneeFound());
    o.put("measured_sustained_rps", round(cap.sustainedRps()));
    if (cap.kneeFound()) {
      o.put("knee_at_rps", round(cap.kneeAtRps()));
      o.put("knee_reason", cap.kneeReason());
    } else {
      o.put("note", "no knee within the profile: the sustained rate is a floor, not the ceiling");
    }
    o.put("failed_holds_below_sustained", cap.failedHoldsBelow());
    o.put("measured_burst_rps", round(peakByScenario(run.ts, "generator", "completed_rps").values().stream()
        .mapToDouble(Double::doubleValue).max().orElse(0)));
    ObjectNode crit = o.putObject("criteria");
    crit.put("p99_ms_max", run.config.kneeP99().toNanos() / 1e6);
    crit.put("error_rate_max", run.config.maxErrorRate());
    crit.put("dropped", 0);
    crit.put("achieved_min_share_of_target", 0.97);
    ObjectNode mau = o.putObject("mau_at_measured_capacity");
    mau.put("typical_model", Math.round(cap.sustainedRps() / TYPICAL_RPS_PER_1M_MAU * 1e6));
    mau.put("chatty_model", Math.round(cap.sustainedRps() / CHATTY_RPS_PER_1M_MAU * 1e6));
    ObjectNode margin = o.putObject("mau_with_3x_planning_margin");
    margin.put("typical_model", Math.round(cap.sustainedRps() / 3 / TYPICAL_RPS_PER_1M_MAU * 1e6));
    margin.put("chatty_model", Math.round(cap.sustainedRps() / 3 / CHATTY_RPS_PER_1M_MAU * 1e6));
    ArrayNode h = o.putArray("holds");
    cap.holds().forEach(h::add);
  }

  private static double cpuPerThousand(LoadRun run, String which) {
    long sent = run.stats.phaseSum(-1, Stats.SENT);
    Map<String, double[]> firstLast = new LinkedHashMap<>();
    for (Timeseries.Row r : run.ts.rows()) {
      if (r.metric().equals("cpu_seconds") && !r.source().equals("generator")) {
        double[] fl = firstLast.computeIfAbsent(r.source(), k -> new double[] {r.value(), r.value()});
        fl[1] = r.value();
      }
    }
    if (firstLast.isEmpty() || sent == 0) {
      return Double.NaN;
    }
    double cpu = 0;
    for (double[] fl : firstLast.values()) {
      cpu += fl[1] - fl[0];
    }
    return cpu * 1e6 / sent;
  }

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

  private static void limits(ArrayNode l, LoadRun run, LoadRun baseline) {
    RunConfig c = run.config;
    l.add("One run, not repeated: no average over several executions.");
    l.add("The generator runs on the same machine as the server and shares its cores; its own CPU is reported under results.generator.");
    l.add("Loopback network: no NIC, no TLS, no load balancer in front of the server.");
    l.add("Latency is measured from the intended send time (no coordinated omission); requests are handed to the event loop in batches up to 0.5 ms ahead of time, and one that leaves early is timed from its actual send.");
    l.add("Percentiles come from HdrHistogram with 3 significant digits; per-interval percentiles in the CSV cover the requests completed in that interval.");
    if (c.replayFile() == null) {
      boolean assets = false;
      for (Profile.Phase p : c.profile().phases()) {
        assets |= p.assets();
      }
      if (!assets) {
        l.add("Asset follow-ups off: the storm measured manifest answers only, not bundle bytes.");
      }
      if (c.profile().triggerAtS() >= 0 && (c.trigger() == null || !c.trigger().configured())) {
        l.add("No push trigger configured: storm openers were simulated as devices running their embedded bundle (fresh installs), not a real publish.");
      }
      if (c.channels().names().size() * c.runtimes().names().size() == 1) {
        l.add("One channel and one runtime version: resolution is as cache-friendly as it gets.");
      }
    } else {
      l.add("Replay validates status, protocol header and multipart framing only: it has no device model to check the update id against.");
    }
    long fresh = run.stats.phaseSum(-1, Stats.FRESH_INSTALLS);
    if (fresh > 0) {
      l.add(fresh + " requests that should come from outdated devices found none left and reset a device to its embedded bundle (a fresh install).");
    }
    if (baseline == null) {
      l.add("No baseline in this run: no ratio to the machine's ceiling.");
    }
  }

  private static double osMemoryGib() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize() / (1024.0 * 1024 * 1024);
    }
    return 0;
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

  static String pct(double v) {
    return String.format(Locale.ROOT, "%.1f%%", v * 100);
  }
}
