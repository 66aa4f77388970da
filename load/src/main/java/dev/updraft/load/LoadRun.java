package dev.updraft.load;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One open-model run of a profile (or a replay) against a set of targets: discovery, the scheduler
 * thread, the lanes, the reporter, the samplers and the push trigger. The scheduler computes every
 * intended send time from the profile alone, whatever the server does; a lane that cannot start a
 * request on time drops it and counts it. Used once; {@link #execute} blocks until the run is over.
 */
final class LoadRun {
  /** Thrown when the target cannot be discovered before the run (not reachable, or answers wrongly). */
  static final class DiscoveryException extends Exception {
    DiscoveryException(String m) {
      super(m);
    }
  }

  /** The first few error messages of each kind, for the summary. Thread-safe. */
  static final class ErrorSamples {
    final Map<ErrorKind, List<String>> byKind = new ConcurrentHashMap<>();

    void note(ErrorKind k, String detail) {
      List<String> l = byKind.computeIfAbsent(k, x -> new ArrayList<>());
      synchronized (l) {
        if (l.size() < 5) {
          l.add(detail);
        }
      }
    }
  }

  /** A response captured during discovery (for the baseline server). */
  record Captured(int status, Map<String, String> headers, byte[] body) {}

  /** What discovery learned for one key. */
  record Discovered(Fleet.Key key, String updateId, String createdAt, Captured manifest, Captured noUpdate) {}

  final RunConfig config;
  final String label;
  final Fleet fleet;
  final Fleet.Catalog catalog;
  final Expectations expectations;
  final Stats stats;
  final ErrorSamples samples = new ErrorSamples();
  final Timeseries ts = new Timeseries();
  final long maxLagNanos;
  final PrintStream out;
  long startNanos;
  /** Wall-clock time of t = 0 (to line the result files up with server logs). */
  long startEpochMillis;
  Targets targets;
  private final List<Lane> lanes = new ArrayList<>();
  private final Histogram[] windowCum;
  private final Histogram[] serviceCum;
  private final Histogram[] assetCum;
  private final Histogram scratch = Stats.newHistogram();
  private final long[] lastPhase;
  private final Map<String, double[]> lastCounts = new LinkedHashMap<>();
  final List<Discovered> discovered = new ArrayList<>();
  volatile Trigger.Result triggerResult;
  volatile double triggerFiredAtS = Double.NaN;
  final Map<String, Double> visibleAfterS = new ConcurrentHashMap<>();
  final AtomicLong peakInFlight = new AtomicLong();
  double wallSeconds;
  double generatorCpuSeconds;
  volatile boolean finished;
  /** Whether Vert.x runs on the epoll transport (false: NIO, slower). */
  boolean nativeTransport;

  LoadRun(RunConfig config, String label, PrintStream out) {
    this.config = config;
    this.label = label;
    this.out = out;
    this.catalog = new Fleet.Catalog();
    this.fleet = new Fleet(config.devices(), config.seed(), config.platforms(), config.runtimes(), config.channels(), catalog);
    this.expectations = new Expectations(fleet, catalog, config.grace().toNanos());
    this.stats = new Stats(config.profile(), config.lanes());
    this.maxLagNanos = config.maxLag().toNanos();
    windowCum = new Histogram[stats.windows.size()];
    for (int i = 0; i < windowCum.length; i++) {
      windowCum[i] = Stats.newHistogram();
    }
    int phases = config.profile().phases().size();
    serviceCum = new Histogram[phases];
    assetCum = new Histogram[phases];
    for (int i = 0; i < phases; i++) {
      serviceCum[i] = Stats.newHistogram();
      assetCum[i] = Stats.newHistogram();
    }
    lastPhase = new long[phases];
  }

  int lanes() {
    return config.lanes();
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

  /** The phase's latency histogram: its windows merged. */
  Histogram phaseHistogram(int phase) {
    Histogram h = Stats.newHistogram();
    for (Stats.Window w : stats.windows) {
      if (phase < 0 || w.phase() == phase) {
        h.add(windowCum[w.index()]);
      }
    }
    return h;
  }

  /** Runs the whole thing against {@code targetUrls}; blocks until done. */
  void execute(List<String> targetUrls) throws DiscoveryException, InterruptedException {
    PublicKey verifyKey = loadKey();
    if (config.discovery()) {
      discover(targetUrls.get(0));
      fleet.initialise(config.upToDate(), expectations.expectedByKey());
    }
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(config.lanes())
            .setWorkerPoolSize(1).setInternalBlockingPoolSize(1))
        .build();
    nativeTransport = vertx.isNativeTransportEnabled();
    try {
      for (int i = 0; i < config.lanes(); i++) {
        Lane lane = new Lane(i, this, verifyKey);
        vertx.deployVerticle(lane).await(10, TimeUnit.SECONDS);
        lanes.add(lane);
      }
      warmup(targetUrls);
      // the wall clock first: startEpochMillis is then never later than the true wall time of startNanos
      startEpochMillis = System.currentTimeMillis() + 300;
      startNanos = System.nanoTime() + 300_000_000L;
      targets = new Targets(targetUrls, startNanos);
      runThreads();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("lanes did not deploy within 10 s", e);
    } finally {
      try {
        vertx.close().await(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        // closing took too long: the run is over anyway
      }
    }
  }

  /** Warms every lane up against every target (untimed, unrecorded); a failure here aborts the run. */
  private void warmup(List<String> targetUrls) {
    if (config.warmup() <= 0) {
      return;
    }
    Targets ts = new Targets(targetUrls, System.nanoTime());
    Fleet.Key k = fleet.keys.get(0);
    io.vertx.core.MultiMap h = io.vertx.core.http.HttpHeaders.headers();
    if (config.replayFile() == null) {
      h.add("accept", "multipart/mixed,application/expo+json,application/json").add("expo-platform", k.platform())
          .add("expo-protocol-version", "1").add("expo-runtime-version", k.runtimeVersion()).add("expo-channel-name", k.channel())
          .add("eas-client-id", Fleet.nameUuid(config.seed(), "warmup").toString())
          .add("expo-current-update-id", k.embeddedUpdateId()).add("expo-embedded-update-id", k.embeddedUpdateId());
    }
    String uri = config.replayFile() == null ? config.path() : config.healthPath();
    for (Targets.Target t : ts.all) {
      for (Lane lane : lanes) {
        try {
          lane.warmup(t, uri, h, config.warmup()).await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          // await rethrows the failure as it is (a ConnectException too); a target may be down on purpose (restart scenarios): the run measures it
          if (out != null) {
            out.println("[" + label + "] warm-up against " + t.base + uri + " failed (" + e.getMessage() + "); continuing");
          }
        }
      }
    }
  }

  private void runThreads() throws InterruptedException {
    double cpu0 = ServerSampling.cpuSeconds("self");
    ServerSampling sampler = new ServerSampling(config.metricsUrls(), label.equals("target") ? config.pids() : baselinePids(),
        config.metricSpecs(), ts, startNanos, Duration.ofSeconds(1), config.profile());
    Thread samplerThread = daemon("load-sampler", sampler);
    Thread reporter = daemon("load-reporter", this::reportLoop);
    Thread prober = daemon("load-prober", this::probeLoop);
    Thread trigger = null;
    if (config.profile().triggerAtS() >= 0 && config.discovery()) {
      trigger = daemon("load-trigger", this::triggerAt);
    }
    this.sampler = sampler;
    samplerThread.start();
    reporter.start();
    prober.start();
    if (trigger != null) {
      trigger.start();
    }
    ArrivalSource source = config.replayFile() != null
        ? new Replay(config.replayFile(), config.replaySpeed(), stats)
        : new Arrivals(config.profile(), stats, config.poisson(), config.seed());
    schedule(source);
    long deadline = System.nanoTime() + config.timeout().toNanos() + 2_000_000_000L;
    while (System.nanoTime() < deadline && totalOutstanding() > 0) {
      Thread.sleep(10);
    }
    long end = System.nanoTime();
    wallSeconds = (end - startNanos) / 1e9;
    generatorCpuSeconds = ServerSampling.cpuSeconds("self") - cpu0;
    finished = true;
    reporter.interrupt();
    reporter.join(5000);
    tick((end - startNanos) / 1e9, true);
    sampler.stop();
    samplerThread.interrupt();
    samplerThread.join(5000);
    prober.interrupt();
    prober.join(2000);
    if (trigger != null) {
      trigger.interrupt();
      trigger.join(2000);
    }
    targets.close(end);
  }

  private Map<String, Long> baselinePids() {
    return baselinePids == null ? Map.of("generator", ProcessHandle.current().pid()) : baselinePids;
  }

  Map<String, Long> baselinePids;
  /** The server sampler of this run (for its scrape errors); null before the run. */
  volatile ServerSampling sampler;

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private int totalInFlight() {
    int n = 0;
    for (Lane l : lanes) {
      n += l.inFlight();
    }
    return n;
  }

  private int totalOutstanding() {
    int n = 0;
    for (Lane l : lanes) {
      n += l.outstanding();
    }
    return n;
  }

  /**
   * How far ahead of its intended time an arrival may be handed to a lane. Handing over arrivals one by
   * one costs an event-loop wake-up (a system call) each; batching everything due in the next 0.5 ms
   * cuts that by an order of magnitude at high rates. A request that leaves early has its latency counted
   * from its actual send, so nothing is under-measured.
   */
  static final long DISPATCH_AHEAD_NANOS = 500_000;

  /** The scheduler: hands each arrival to a lane at its intended time (batched, round-robin). */
  private void schedule(ArrivalSource source) {
    int nl = lanes.size();
    Arrival[][] batch = new Arrival[nl][64];
    int[] fill = new int[nl];
    int next = 0;
    Arrival a = source.next();
    while (a != null) {
      long wait = startNanos + a.intendedNanos() - System.nanoTime();
      if (wait > DISPATCH_AHEAD_NANOS) {
        flush(batch, fill);
        LockSupport.parkNanos(wait - DISPATCH_AHEAD_NANOS);
        continue;
      }
      int l = next;
      next = next + 1 == nl ? 0 : next + 1;
      batch[l][fill[l]++] = a;
      if (fill[l] == batch[l].length) {
        lanes.get(l).submit(batch[l], fill[l]);
        batch[l] = new Arrival[64];
        fill[l] = 0;
      }
      a = source.next();
    }
    flush(batch, fill);
  }

  private void flush(Arrival[][] batch, int[] fill) {
    for (int l = 0; l < batch.length; l++) {
      if (fill[l] > 0) {
        lanes.get(l).submit(batch[l], fill[l]);
        batch[l] = new Arrival[64];
        fill[l] = 0;
      }
    }
  }

  private void reportLoop() {
    long period = config.interval().toNanos();
    long next = startNanos + period;
    while (!finished) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          return;
        }
      }
      if (finished) {
        return;
      }
      tick((next - startNanos) / 1e9, false);
      next += period;
    }
  }

  private double lastTick;
  private double lastProgress;

  /** Pulls the interval histograms and counters, writes one interval of rows, prints progress. */
  synchronized void tick(double t, boolean last) {
    double dt = t - lastTick;
    if (dt <= 0) {
      return;
    }
    Profile profile = config.profile();
    int phases = profile.phases().size();
    Histogram[] interval = new Histogram[phases];
    for (int p = 0; p < phases; p++) {
      interval[p] = Stats.newHistogram();
    }
    for (int l = 0; l < stats.lanes; l++) {
      for (Stats.Window w : stats.windows) {
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
    StringBuilder progress = new StringBuilder();
    for (int p = 0; p < phases; p++) {
      Profile.Phase ph = profile.phases().get(p);
      double target = (ph.countUntil(t) - ph.countUntil(lastTick)) / dt;
      double[] now = {
        stats.phaseSum(p, Stats.SENT), stats.phaseSum(p, Stats.RESPONSES), stats.phaseErrors(p),
        stats.phaseSum(p, Stats.DROP_LATE) + stats.phaseSum(p, Stats.DROP_INFLIGHT), stats.phaseSum(p, Stats.ASSETS)
      };
      double[] before = lastCounts.getOrDefault(ph.name(), new double[now.length]);
      lastCounts.put(ph.name(), now);
      boolean active = target > 0 || now[0] != before[0] || now[1] != before[1] || now[2] != before[2] || now[3] != before[3];
      if (!active) {
        continue;
      }
      String sc = ph.name();
      String src = "generator";
      ts.add(t, src, "target_rps", sc, target);
      ts.add(t, src, "sent_rps", sc, (now[0] - before[0]) / dt);
      ts.add(t, src, "completed_rps", sc, (now[1] - before[1]) / dt);
      ts.add(t, src, "errors", sc, now[2] - before[2]);
      ts.add(t, src, "dropped", sc, now[3] - before[3]);
      if (now[4] != before[4]) {
        ts.add(t, src, "asset_rps", sc, (now[4] - before[4]) / dt);
      }
      Histogram h = interval[p];
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
    long inflight = totalInFlight();
    peakInFlight.accumulateAndGet(inflight, Math::max);
    ts.add(t, "generator", "in_flight", Timeseries.scenarioAt(profile, t), inflight);
    for (Targets.Target tg : targets.all) {
      if (targets.all.size() > 1 || tg.down) {
        ts.add(t, "target" + tg.index, "down", Timeseries.scenarioAt(profile, t), tg.down ? 1 : 0);
      }
    }
    lastTick = t;
    if (out != null && (last || t - lastProgress >= config.progress().toMillis() / 1000.0 - 1e-9)) {
      lastProgress = t;
      out.println(String.format(Locale.ROOT, "[%s %6.1fs]%s in-flight %d%s", label, t,
          progress.length() == 0 ? " | idle" : progress.toString(), inflight, targets.anyDown() ? " | a target is DOWN" : ""));
    }
  }

  /** Probes down targets' health path every 100 ms; a 200 ends the outage. */
  private void probeLoop() {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofMillis(500)).build();
    while (!finished) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
      for (Targets.Target t : targets.all) {
        if (!t.down) {
          continue;
        }
        try {
          HttpResponse<Void> r = http.send(
              HttpRequest.newBuilder(URI.create(t.base + config.healthPath())).timeout(Duration.ofMillis(500)).GET().build(),
              HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() == 200) {
            targets.answered(t, System.nanoTime());
          }
        } catch (IOException e) {
          // still down
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** Fires the push trigger at its time, then polls until each key shows its new update. */
  private void triggerAt() {
    long at = startNanos + (long) (config.profile().triggerAtS() * 1e9);
    long wait = at - System.nanoTime();
    try {
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
    } catch (InterruptedException e) {
      return;
    }
    Trigger.Spec spec = config.trigger();
    if (spec == null || !spec.configured()) {
      return;
    }
    // what each key expects before the publish: fleet traffic may learn the new update before the call returns
    Map<Integer, Integer> before = new LinkedHashMap<>();
    for (Fleet.Key k : fleet.keys) {
      before.put(k.index(), expectations.expectedIdx(k.index()));
    }
    long firedAt = System.nanoTime();
    triggerFiredAtS = (firedAt - startNanos) / 1e9;
    Trigger.Result r = Trigger.fire(spec);
    triggerResult = r;
    if (out != null) {
      out.println("[" + label + "] push trigger " + spec.method() + " " + spec.url() + " -> " + (r.error() != null ? r.error() : "status " + r.status()));
    }
    if (!r.ok()) {
      return;
    }
    long deadline = firedAt + config.triggerWait().toNanos();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
    ResponseCheck check = new ResponseCheck(null);
    while (System.nanoTime() < deadline && !finished && visibleAfterS.size() < fleet.keys.size()) {
      for (Fleet.Key k : fleet.keys) {
        if (visibleAfterS.containsKey(k.label())) {
          continue;
        }
        if (expectations.expectedIdx(k.index()) != before.get(k.index())) {
          visibleAfterS.put(k.label(), (System.nanoTime() - firedAt) / 1e9);
          continue;
        }
        try {
          Captured c = ask(http, targets.all.get(0).base, k, k.embeddedUpdateId());
          ResponseCheck.Answer a = check.check(c.status(), c.headers()::get, c.body(), k.runtimeVersion(), config.signature());
          if (a.ok()) {
            expectations.learn(k, a, System.nanoTime());
            if (expectations.expectedIdx(k.index()) != before.get(k.index())) {
              visibleAfterS.put(k.label(), (System.nanoTime() - firedAt) / 1e9);
            }
          }
        } catch (IOException e) {
          // the target may be restarting: try again
        } catch (InterruptedException e) {
          return;
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One manifest request as a device of key {@code k} running {@code currentId}, with the JDK client. */
  Captured ask(HttpClient http, String base, Fleet.Key k, String currentId) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + config.path())).timeout(Duration.ofSeconds(10)).GET()
        .header("accept", "multipart/mixed,application/expo+json,application/json")
        .header("expo-platform", k.platform())
        .header("expo-protocol-version", "1")
        .header("expo-runtime-version", k.runtimeVersion())
        .header("expo-channel-name", k.channel())
        .header("eas-client-id", Fleet.nameUuid(config.seed(), "discovery").toString())
        .header("expo-current-update-id", currentId)
        .header("expo-embedded-update-id", k.embeddedUpdateId());
    if (config.signature()) {
      b.header("expo-expect-signature", "sig, keyid=\"" + config.signatureKeyId() + "\", alg=\"rsa-v1_5-sha256\"");
    }
    HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Captured(r.statusCode(), flatten(r.headers()), r.body());
  }

  private static Map<String, String> flatten(HttpHeaders h) {
    Map<String, String> m = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (Map.Entry<String, List<String>> e : h.map().entrySet()) {
      if (!e.getValue().isEmpty()) {
        m.put(e.getKey(), e.getValue().get(0));
      }
    }
    return m;
  }

  /** Learns the expected update of every key and captures the responses for the baseline server. */
  private void discover(String base) throws DiscoveryException {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    ResponseCheck check = new ResponseCheck(null);
    for (Fleet.Key k : fleet.keys) {
      try {
        Captured m = ask(http, base, k, k.embeddedUpdateId());
        ResponseCheck.Answer a = check.check(m.status(), m.headers()::get, m.body(), k.runtimeVersion(), config.signature());
        if (!a.ok()) {
          throw new DiscoveryException("discovery of " + k.label() + " at " + base + config.path() + " failed: "
              + a.error().wire + " " + a.detail());
        }
        expectations.learn(k, a, System.nanoTime());
        Captured none = null;
        if (a.kind() == ResponseCheck.Kind.MANIFEST) {
          none = ask(http, base, k, a.updateId());
          ResponseCheck.Answer b = check.check(none.status(), none.headers()::get, none.body(), k.runtimeVersion(), config.signature());
          if (!b.ok() || b.kind() != ResponseCheck.Kind.NO_UPDATE) {
            throw new DiscoveryException("discovery of " + k.label() + ": a device running " + a.updateId()
                + " should get no update but got " + (b.ok() ? b.kind() : b.error().wire + " " + b.detail()));
          }
        }
        discovered.add(new Discovered(k, a.kind() == ResponseCheck.Kind.MANIFEST ? a.updateId() : null, a.createdAt(), m, none));
      } catch (IOException e) {
        throw new DiscoveryException("target not reachable for discovery: " + base + config.path() + ": " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DiscoveryException("interrupted during discovery");
      }
    }
  }

  private PublicKey loadKey() {
    if (config.verifyCertificate() == null) {
      return null;
    }
    try (InputStream in = Files.newInputStream(config.verifyCertificate())) {
      return CertificateFactory.getInstance("X.509").generateCertificate(in).getPublicKey();
    } catch (IOException | CertificateException e) {
      throw new dev.updraft.common.ConfigException("--verify-certificate is not a readable X.509 PEM: " + config.verifyCertificate() + ": " + e.getMessage());
    }
  }
}
