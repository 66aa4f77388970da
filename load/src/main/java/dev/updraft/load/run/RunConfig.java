package dev.updraft.load.run;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.load.fleet.Fleet;
import dev.updraft.load.replay.Replay;
import dev.updraft.load.traffic.Profile;
import dev.updraft.load.traffic.Profiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The typed configuration of {@code load run} and {@code load replay}, read once from {@link Settings}
 * and validated (unknown flags rejected by name). Immutable.
 */
public record RunConfig(
    String name,
    Path outDir,
    List<String> targets,
    String path,
    Profile profile,
    boolean poisson,
    int devices,
    long seed,
    Fleet.Mix platforms,
    Fleet.Mix runtimes,
    Fleet.Mix channels,
    double upToDate,
    boolean signature,
    String signatureKeyId,
    Path verifyCertificate,
    String assetHash,
    String assetRewriteFrom,
    String assetRewriteTo,
    int lanes,
    int connections,
    int maxInFlight,
    Duration maxLag,
    Duration timeout,
    Duration grace,
    Trigger.Spec trigger,
    Duration triggerWait,
    Map<String, String> metricsUrls,
    List<ServerSampling.MetricSpec> metricSpecs,
    Map<String, Long> pids,
    String healthPath,
    boolean baseline,
    Profile baselineProfile,
    int baselineEventLoops,
    String baselineJvmOpts,
    String baselineCpus,
    Duration interval,
    Duration progress,
    double maxErrorRate,
    Duration kneeP99,
    Path replayFile,
    double replaySpeed,
    boolean discovery,
    int warmup,
    boolean warmupMirror,
    boolean assetPatches,
    boolean assetClientEncodings,
    Path deviceLog,
    Duration serverPrerun) {

  static final Set<String> RUN_FLAGS = Set.of(
      "name", "out-dir", "target", "path", "app", "profile", "scale", "time-scale", "rate", "duration",
      "knee-from", "knee-to", "knee-step", "knee-ramp", "knee-hold", "arrivals", "devices", "seed", "platforms",
      "channels", "runtime-versions", "up-to-date", "signature", "signature-keyid", "verify-certificate", "assets",
      "asset-hash", "asset-patches", "asset-encoding", "asset-url-rewrite", "event-loops", "connections", "max-in-flight", "max-lag", "timeout", "grace",
      "trigger-url", "trigger-method", "trigger-body", "trigger-token", "trigger-content-type", "trigger-at",
      "trigger-wait", "metrics", "metric-names", "pids", "health-path", "baseline", "baseline-profile",
      "baseline-event-loops", "baseline-jvm-opts", "baseline-cpus", "interval", "progress", "max-error-rate", "knee-p99", "warmup",
      "warmup-on", "device-log", "server-prerun");

  static final Set<String> REPLAY_FLAGS = Set.of(
      "name", "out-dir", "target", "speed", "event-loops", "connections", "max-in-flight", "max-lag", "timeout",
      "metrics", "metric-names", "pids", "health-path", "interval", "progress", "max-error-rate", "warmup");

  public static RunConfig forRun(Settings s) {
    s.rejectUnknown(RUN_FLAGS);
    Profile p = profile(s, s.string("profile", "xprem"));
    Profile baselineProfile = s.has("baseline-profile") ? profile(s, s.string("baseline-profile", "knee")) : p;
    return common(s, p, baselineProfile, null, 1, true);
  }

  public static RunConfig forReplay(Settings s, Path file) {
    s.rejectUnknown(REPLAY_FLAGS);
    double speed = number(s, "speed", 1.0);
    if (!(speed > 0)) {
      throw new ConfigException("--speed must be > 0: got " + speed);
    }
    if (!Files.isReadable(file)) {
      throw new ConfigException("replay file not readable: " + file);
    }
    return common(s, Replay.profileOf(file, speed), null, file, speed, false);
  }

  private static RunConfig common(Settings s, Profile p, Profile baselineProfile, Path replay, double speed, boolean run) {
    String app = s.string("app", "demo");
    List<String> targets = new ArrayList<>();
    for (String t : s.string("target", "").split(",")) {
      if (!t.isBlank()) {
        targets.add(t.trim());
      }
    }
    if (targets.isEmpty()) {
      throw new ConfigException("--target is required: a base URL such as http://127.0.0.1:3000 (several separated by commas)");
    }
    String rewrite = s.string("asset-url-rewrite", null);
    String from = null;
    String to = null;
    if (rewrite != null) {
      int eq = rewrite.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException("--asset-url-rewrite takes FROM=TO (URL prefixes): got '" + rewrite + "'");
      }
      from = rewrite.substring(0, eq);
      to = rewrite.substring(eq + 1);
    }
    Map<String, Long> pids = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, String> e : ServerSampling.namedList("pids", s.string("pids", null)).entrySet()) {
      try {
        pids.put(e.getKey(), Long.parseLong(e.getValue()));
      } catch (NumberFormatException ex) {
        throw new ConfigException("--pids takes name=pid items: got '" + e.getKey() + "=" + e.getValue() + "'");
      }
    }
    pids.put("generator", ProcessHandle.current().pid());
    double upToDate = number(s, "up-to-date", 0.95);
    if (upToDate < 0 || upToDate > 1) {
      throw new ConfigException("--up-to-date must be between 0 and 1: got " + upToDate);
    }
    String certificate = s.string("verify-certificate", null);
    return new RunConfig(
        s.string("name", run ? "load" : "replay"),
        s.path("out-dir", Path.of(".")),
        targets,
        s.string("path", "/apps/" + app + "/manifest"),
        p,
        "poisson".equals(s.choice("arrivals", "uniform", "uniform", "poisson")),
        s.integer("devices", 100_000, 1, 50_000_000),
        s.longValue("seed", 42, Long.MIN_VALUE, Long.MAX_VALUE),
        Fleet.Mix.parse("platforms", s.string("platforms", "ios:60,android:40")),
        Fleet.Mix.parse("runtime-versions", s.string("runtime-versions", "1.0.0")),
        Fleet.Mix.parse("channels", s.string("channels", "production")),
        upToDate,
        s.bool("signature", false),
        s.string("signature-keyid", "main"),
        certificate == null ? null : Path.of(certificate),
        s.choice("asset-hash", "first", "first", "always", "off"),
        from,
        to,
        s.integer("event-loops", 1, 1, 16),
        s.integer("connections", 64, 1, 10_000),
        s.integer("max-in-flight", 10_000, 1, 1_000_000),
        s.duration("max-lag", Duration.ofMillis(100)),
        s.duration("timeout", Duration.ofSeconds(10)),
        s.duration("grace", Duration.ofSeconds(5)),
        Trigger.Spec.from(s),
        s.duration("trigger-wait", Duration.ofSeconds(30)),
        ServerSampling.namedList("metrics", s.string("metrics", null)),
        ServerSampling.parseSpecs(s.string("metric-names", ServerSampling.DEFAULT_METRICS)),
        pids,
        s.string("health-path", "/readyz"),
        s.bool("baseline", false),
        baselineProfile,
        s.integer("baseline-event-loops", 2, 1, 16),
        s.string("baseline-jvm-opts", "-Xmx512m -XX:+UseParallelGC"),
        cpus(s.string("baseline-cpus", null)),
        s.duration("interval", Duration.ofSeconds(1)),
        s.duration("progress", Duration.ofSeconds(5)),
        number(s, "max-error-rate", 0.001),
        s.duration("knee-p99", Duration.ofMillis(10)),
        replay,
        speed,
        run,
        s.integer("warmup", run ? 200 : 0, 0, 100_000),
        run && "mirror".equals(s.choice("warmup-on", "mirror", "mirror", "target")),
        s.bool("asset-patches", true),
        "clients".equals(s.choice("asset-encoding", "clients", "clients", "identity")),
        run ? s.path("device-log", null) : null,
        run ? s.duration("server-prerun", Duration.ZERO) : Duration.ZERO);
  }

  /**
   * The configuration of the baseline run: its profile, no server metrics, no push trigger, and the warm-up requests
   * sent to the trivial server itself (the edge warms itself before it is ready; the trivial server has no warm-up of
   * its own, and its JIT's first seconds would otherwise count in its CPU per request).
   */
  public RunConfig forBaseline() {
    return new RunConfig(name, outDir, targets, path, baselineProfile, poisson, devices, seed, platforms, runtimes, channels,
        upToDate, signature, signatureKeyId, verifyCertificate, assetHash, assetRewriteFrom, assetRewriteTo, lanes, connections,
        maxInFlight, maxLag, timeout, grace, null, triggerWait, Map.of(), metricSpecs, pids, "/readyz", false,
        baselineProfile, baselineEventLoops, baselineJvmOpts, baselineCpus, interval, progress, maxErrorRate, kneeP99, replayFile, replaySpeed,
        discovery, warmup, false, assetPatches, assetClientEncodings, null, serverPrerun);
  }

  /**
   * The configuration of a server pre-run ({@code --server-prerun}): this run's profile for the pre-run's length
   * (played again from its start when shorter), no push trigger, no server metrics, no device log. Its results are
   * discarded; it only has the server do the measured run's work first (its JIT compiled, its caches filled).
   */
  public RunConfig forPrerun() {
    if (serverPrerun.isZero()) {
      throw new IllegalStateException("no --server-prerun configured: run " + name);
    }
    Profile p = profile.firstSeconds(serverPrerun.toMillis() / 1000.0);
    return new RunConfig(name, outDir, targets, path, p, poisson, devices, seed, platforms, runtimes, channels,
        upToDate, signature, signatureKeyId, verifyCertificate, assetHash, assetRewriteFrom, assetRewriteTo, lanes, connections,
        maxInFlight, maxLag, timeout, grace, null, triggerWait, Map.of(), metricSpecs, pids, healthPath, false,
        baselineProfile, baselineEventLoops, baselineJvmOpts, baselineCpus, interval, progress, maxErrorRate, kneeP99, replayFile, replaySpeed,
        discovery, warmup, warmupMirror, assetPatches, assetClientEncodings, null, serverPrerun);
  }

  /** A CPU list for {@code taskset -c} (digits, commas and ranges), or null. */
  static String cpus(String v) {
    if (v == null) {
      return null;
    }
    if (!v.matches("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*")) {
      throw new ConfigException("--baseline-cpus takes a CPU list as taskset -c does (0, 1, 0-1, 0,2): got '" + v + "'");
    }
    return v;
  }

  public static Profile profile(Settings s, String name) {
    Profile p;
    switch (name) {
      case "xprem":
        p = Profiles.xprem();
        break;
      case "xprem-short":
        p = Profiles.xprem().scaled(1, 0.1);
        p = new Profile("xprem-short", "xprem's phases compressed 10x in time (99 s)", p.phases(), p.triggerAtS());
        break;
      case "smoke":
        p = Profiles.smoke();
        break;
      case "storm":
        p = Profiles.storm();
        break;
      case "knee":
        p = Profiles.knee(number(s, "knee-from", 1000), number(s, "knee-to", 20000), number(s, "knee-step", 1000),
            seconds(s, "knee-ramp", 5), seconds(s, "knee-hold", 20));
        break;
      case "constant":
        p = Profiles.constant(number(s, "rate", 100), seconds(s, "duration", 60));
        break;
      default:
        throw new ConfigException("--profile must be one of " + Profiles.NAMES + ": got '" + name + "'");
    }
    p = p.scaled(number(s, "scale", 1.0), number(s, "time-scale", 1.0));
    if (s.has("trigger-at")) {
      p = p.withTriggerAt(s.duration("trigger-at", Duration.ZERO).toMillis() / 1000.0);
    }
    return p.withAssets(s.bool("assets", false));
  }

  public static double number(Settings s, String name, double def) {
    String v = s.raw(name);
    if (v == null) {
      return def;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new ConfigException("--" + name + " must be a number: got '" + v + "'");
    }
  }

  public static double seconds(Settings s, String name, double defSeconds) {
    return s.duration(name, Duration.ofMillis((long) (defSeconds * 1000))).toMillis() / 1000.0;
  }

  static String readBody(String v) {
    if (v != null && v.startsWith("@")) {
      try {
        return Files.readString(Path.of(v.substring(1)));
      } catch (IOException e) {
        throw new ConfigException("--trigger-body file not readable: " + v.substring(1));
      }
    }
    return v;
  }
}
