package dev.updraft.load.report;

import static dev.updraft.load.report.Numbers.round;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.load.fleet.Fleet;
import dev.updraft.load.run.RunConfig;
import dev.updraft.load.run.RunResult;
import dev.updraft.load.run.Stats;
import dev.updraft.load.run.Timeseries;
import dev.updraft.load.run.Trigger;
import dev.updraft.load.traffic.Profile;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds {@code <name>-summary.json} from finished runs, in the shape of xprem's summary (run,
 * configuration, traffic_model, phases, results, capacity, limits) plus what we add (errors by kind,
 * windows, targets and outages, push visibility, generator CPU, baseline and ratio). The sections are
 * written by {@link Results} and {@link Capacity}.
 */
public final class Summary {
  public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Summary() {}

  /**
   * @param baseline nullable: the same generator's run against the baseline server
   * @param args the command line, recorded in the summary
   */
  public static ObjectNode build(RunResult run, RunResult baseline, List<String> args, String command) {
    ObjectNode root = JSON.createObjectNode();
    RunConfig c = run.config();
    long dropped = Capacity.invalidatingDrops(run);
    ObjectNode r = root.putObject("run");
    r.put("name", c.name());
    r.put("date", Instant.now().toString());
    r.put("start_epoch_ms", run.startEpochMillis());
    r.put("tool", "updraft load " + command);
    r.put("command", String.join(" ", args));
    r.put("profile", c.profile().name());
    r.put("profile_description", c.profile().description());
    r.put("duration_seconds", round(run.wallSeconds()));
    r.put("server_prerun_seconds", round(c.serverPrerun().toMillis() / 1000.0));
    r.put("valid", dropped == 0);
    if (dropped > 0) {
      r.put("invalid_reason", dropped + " requests dropped: the generator could not start them on time (more than "
          + c.maxLag().toMillis() + " ms late, or " + c.maxInFlight() + " in flight in one lane); the numbers understate the load");
    }
    configuration(root.putObject("configuration"), run);
    trafficModel(root.putObject("traffic_model"));
    phases(root.putArray("phases"), c.profile());
    Results.write(root.putObject("results"), run);
    Capacity cap = Capacity.of(run);
    cap.writeTo(root.putObject("capacity"), run);
    if (baseline != null) {
      baseline(root.putObject("baseline"), run, cap, baseline);
    }
    limits(root.putArray("limits"), run, baseline);
    return root;
  }

  private static void trafficModel(ObjectNode tm) {
    tm.put("note", "expo-updates clients check for an update once per app launch (xprem's models)");
    ObjectNode typical = tm.putObject("typical_app");
    typical.put("dau_over_mau", 0.2).put("sessions_per_day", 2.5).put("peak_factor", 3).put("peak_rps_per_1m_mau", Capacity.TYPICAL_RPS_PER_1M_MAU);
    ObjectNode chatty = tm.putObject("chatty_app");
    chatty.put("dau_over_mau", 0.5).put("sessions_per_day", 5).put("peak_factor", 4).put("peak_rps_per_1m_mau", Capacity.CHATTY_RPS_PER_1M_MAU);
  }

  private static void phases(ArrayNode phases, Profile profile) {
    for (Profile.Phase p : profile.phases()) {
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
  }

  private static void baseline(ObjectNode b, RunResult run, Capacity cap, RunResult baseline) {
    b.put("what", "the same generator against a trivial Vert.x server returning the bytes captured from the target");
    b.put("profile", baseline.config().profile().name());
    b.put("server_prerun_seconds", round(baseline.config().serverPrerun().toMillis() / 1000.0));
    b.put("valid", Capacity.invalidatingDrops(baseline) == 0);
    Results.write(b.putObject("results"), baseline);
    Capacity bc = Capacity.of(baseline);
    bc.writeTo(b.putObject("capacity"), baseline);
    ObjectNode ratio = b.putObject("ratio");
    if (bc.sustainedRps() > 0) {
      ratio.put("capacity_vs_baseline", round(cap.sustainedRps() / bc.sustainedRps()));
      String note = bc.kneeFound() ? "target capacity / baseline capacity"
          : "the baseline reached no knee: its capacity is a floor, so this ratio is an upper bound";
      if (!cap.kneeFound()) {
        note += "; the target reached no knee in profile " + run.config().profile().name()
            + ": its sustained rate is a floor, so this ratio is a lower bound (run both with --profile knee for a ratio of ceilings)";
      }
      ratio.put("note", note);
    }
    double tc = cpuPerThousand(run);
    double bcpu = cpuPerThousand(baseline);
    if (!Double.isNaN(tc) && !Double.isNaN(bcpu) && bcpu > 0) {
      ratio.put("server_cpu_ms_per_1000_requests_target", round(tc));
      ratio.put("server_cpu_ms_per_1000_requests_baseline", round(bcpu));
      ratio.put("server_cpu_vs_baseline", round(tc / bcpu));
      ratio.put("server_cpu_of", "the process sampled as edge (--pids edge=PID) when there is one, else every sampled process but the"
          + " generator; the baseline server's own process");
    }
  }

  private static void configuration(ObjectNode o, RunResult run) {
    RunConfig c = run.config();
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
    g.put("native_transport", run.nativeTransport());
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
      if (c.deviceLog() != null) {
        fe.put("device_log", c.deviceLog().toString());
      }
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

  /** The server CPU (every sampled process but the generator) per 1,000 requests sent, ms; NaN without samples. */
  private static double cpuPerThousand(RunResult run) {
    long sent = run.stats().phaseSum(-1, Stats.SENT);
    // a process sampled as "edge" is the server under test: the dev stack's and PostgreSQL's CPU beside it are not
    boolean edgeOnly = run.timeseries().rows().stream().anyMatch(r -> r.metric().equals("cpu_seconds") && r.source().equals("edge"));
    Map<String, double[]> firstLast = new LinkedHashMap<>();
    for (Timeseries.Row r : run.timeseries().rows()) {
      if (r.metric().equals("cpu_seconds") && !r.source().equals("generator") && (!edgeOnly || r.source().equals("edge"))) {
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

  private static void limits(ArrayNode l, RunResult run, RunResult baseline) {
    RunConfig c = run.config();
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
    long fresh = run.stats().phaseSum(-1, Stats.FRESH_INSTALLS);
    if (fresh > 0) {
      l.add(fresh + " requests that should come from outdated devices found none left and reset a device to its embedded bundle (a fresh install).");
    }
    if (baseline == null) {
      l.add("No baseline in this run: no ratio to the machine's ceiling.");
    }
    if (c.replayFile() == null) {
      l.add(c.serverPrerun().isZero()
          ? "No server pre-run: what the server had not run before this traffic (its JIT compiling that code) happens during the measured run."
          : "Server pre-run: the same traffic ran " + round(c.serverPrerun().toMillis() / 1000.0) + " s against the target"
              + (baseline != null ? " (and against the fresh baseline server before its run)" : "")
              + " before the measured run, unmeasured: none of its requests are counted and its CPU time is in no figure.");
    }
  }

  private static double osMemoryGib() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize() / (1024.0 * 1024 * 1024);
    }
    return 0;
  }
}
