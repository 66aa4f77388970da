package dev.updraft.load.run;

import dev.updraft.common.ConfigException;
import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.fleet.Expectations;
import dev.updraft.load.fleet.Fleet;
import dev.updraft.load.replay.Replay;
import dev.updraft.load.traffic.Arrival;
import dev.updraft.load.traffic.ArrivalSource;
import dev.updraft.load.traffic.Arrivals;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One open-model run of a profile (or a replay) against a set of targets: discovery ({@link Discovery}),
 * the scheduler thread, the lanes ({@link Lane}), the reporter ({@link IntervalReporter}), the samplers
 * and the push trigger ({@link PushWatch}). The scheduler computes every intended send time from the
 * profile alone, whatever the server does; a lane that cannot start a request on time drops it and
 * counts it. Used once; {@link #execute} blocks until the run is over, then it is a {@link RunResult}.
 */
public final class LoadRun implements RunResult {
  /** Thrown when the target cannot be discovered before the run (not reachable, or answers wrongly). */
  public static final class DiscoveryException extends Exception {
    public DiscoveryException(String m) {
      super(m);
    }
  }

  /**
   * How far ahead of its intended time an arrival may be handed to a lane. Handing over arrivals one by
   * one costs an event-loop wake-up (a system call) each; batching everything due in the next 0.5 ms
   * cuts that by an order of magnitude at high rates. A request that leaves early has its latency counted
   * from its actual send, so nothing is under-measured.
   */
  static final long DISPATCH_AHEAD_NANOS = 500_000;

  final RunConfig config;
  final String label;
  final Fleet fleet;
  final Fleet.Catalog catalog;
  final Expectations expectations;
  final Stats stats;
  /** Nullable: the devices' own log ({@code --device-log}). */
  final DeviceLog deviceLog;
  final ErrorSamples samples = new ErrorSamples();
  final Timeseries ts = new Timeseries();
  final long maxLagNanos;
  final PrintStream out;
  final IntervalReporter reporter;
  private final Discovery discovery;
  private final PushWatch push;
  long startNanos;
  /** Wall-clock time of t = 0 (to line the result files up with server logs). */
  long startEpochMillis;
  Targets targets;
  private final List<Lane> lanes = new ArrayList<>();
  private final List<Discovered> discovered = new ArrayList<>();
  double wallSeconds;
  double generatorCpuSeconds;
  volatile boolean finished;
  /** Whether Vert.x runs on the epoll transport (false: NIO, slower). */
  boolean nativeTransport;
  /** Nullable: the processes to sample instead of the configured ones (a baseline run samples its server). */
  private Map<String, Long> processes;
  /** The server sampler of this run (for its scrape errors); null before the run. */
  private volatile ServerSampling sampler;

  /** @param out nullable: no progress lines */
  public LoadRun(RunConfig config, String label, PrintStream out) {
    this.config = config;
    this.label = label;
    this.out = out;
    this.catalog = new Fleet.Catalog();
    this.fleet = new Fleet(config.devices(), config.seed(), config.platforms(), config.runtimes(), config.channels(), catalog);
    this.expectations = new Expectations(fleet, catalog, config.grace().toNanos());
    this.stats = new Stats(config.profile(), config.lanes());
    this.maxLagNanos = config.maxLag().toNanos();
    this.reporter = new IntervalReporter(this);
    this.deviceLog = config.deviceLog() == null ? null : new DeviceLog(config.deviceLog());
    this.discovery = new Discovery(config, deviceLog);
    this.push = new PushWatch(this, discovery);
  }

  /** Samples these processes (name → pid) instead of the configured {@code --pids}; call before {@link #execute}. */
  public void sampleProcesses(Map<String, Long> pids) {
    this.processes = new LinkedHashMap<>(pids);
  }

  int lanes() {
    return config.lanes();
  }

  /** Runs the whole thing against {@code targetUrls}; blocks until done. */
  public void execute(List<String> targetUrls) throws DiscoveryException, InterruptedException {
    PublicKey verifyKey = loadKey();
    if (config.discovery()) {
      discovered.addAll(discovery.discover(targetUrls.get(0), fleet, expectations));
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
      new GeneratorWarmup(config, fleet, discovered, lanes, out, label).run(vertx, targetUrls);
      // the wall clock first: startEpochMillis is then never later than the true wall time of startNanos
      startEpochMillis = System.currentTimeMillis() + 300;
      startNanos = System.nanoTime() + 300_000_000L;
      targets = new Targets(targetUrls, startNanos);
      runThreads();
      if (deviceLog != null) {
        writeDeviceLog();
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("lanes did not deploy within 10 s", e);
    } finally {
      try {
        vertx.close().await(10, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        // closing took too long: the run is over anyway
      }
    }
  }

  private void writeDeviceLog() {
    try {
      deviceLog.write();
      if (out != null) {
        out.println("[" + label + "] device log: " + deviceLog.size() + " entries in " + config.deviceLog());
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("device log " + config.deviceLog() + " not written", e);
    }
  }

  private void runThreads() throws InterruptedException {
    double cpu0 = ServerSampling.cpuSeconds("self");
    Map<String, Long> pids = processes != null ? processes
        : label.equals("target") ? config.pids() : Map.of("generator", ProcessHandle.current().pid());
    ServerSampling sampling = new ServerSampling(config.metricsUrls(), pids, config.metricSpecs(), ts, startNanos, Duration.ofSeconds(1),
        config.profile());
    Thread samplerThread = daemon("load-sampler", sampling);
    Thread reporterThread = daemon("load-reporter", reporter);
    Thread prober = daemon("load-prober", this::probeLoop);
    Thread trigger = config.profile().triggerAtS() >= 0 && config.discovery() ? daemon("load-trigger", push) : null;
    this.sampler = sampling;
    samplerThread.start();
    reporterThread.start();
    prober.start();
    if (trigger != null) {
      trigger.start();
    }
    ArrivalSource source = config.replayFile() != null
        ? new Replay(config.replayFile(), config.replaySpeed(), stats.windowsOf())
        : new Arrivals(config.profile(), stats.windowsOf(), config.poisson(), config.seed());
    schedule(source);
    long deadline = System.nanoTime() + config.timeout().toNanos() + 2_000_000_000L;
    while (System.nanoTime() < deadline && totalOutstanding() > 0) {
      Thread.sleep(10);
    }
    long end = System.nanoTime();
    wallSeconds = (end - startNanos) / 1e9;
    generatorCpuSeconds = ServerSampling.cpuSeconds("self") - cpu0;
    finished = true;
    reporterThread.interrupt();
    reporterThread.join(5000);
    tick((end - startNanos) / 1e9, true);
    sampling.stop();
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

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  int totalInFlight() {
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

  /** One interval of rows (see {@link IntervalReporter#tick}). */
  void tick(double t, boolean last) {
    reporter.tick(t, last);
  }

  /** Probes down targets' health path every 100 ms; a 200 ends the outage. */
  private void probeLoop() {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofMillis(500)).build();
    long probes = 0;
    while (!finished) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
      // with several targets, the up ones too once a second (a load balancer's readiness check)
      boolean everyTarget = targets.all.size() > 1 && ++probes % 10 == 0;
      for (Targets.Target t : targets.all) {
        if (!t.down && !everyTarget) {
          continue;
        }
        long sent = System.nanoTime();
        try {
          HttpResponse<Void> r = http.send(
              HttpRequest.newBuilder(URI.create(t.base + config.healthPath())).timeout(Duration.ofMillis(500)).GET().build(),
              HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() == 200) {
            targets.ready(t, System.nanoTime());
          } else {
            targets.notReady(t, sent, System.nanoTime());
          }
        } catch (java.net.http.HttpTimeoutException e) {
          // slow, not gone: a load balancer takes a server out after failed checks, not one late answer
        } catch (IOException e) {
          targets.notReady(t, sent, System.nanoTime());
        } catch (InterruptedException e) {
          return;
        }
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
      throw new ConfigException("--verify-certificate is not a readable X.509 PEM: " + config.verifyCertificate() + ": " + e.getMessage());
    }
  }

  // ---- RunResult

  @Override
  public RunConfig config() {
    return config;
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public Stats stats() {
    return stats;
  }

  @Override
  public Timeseries timeseries() {
    return ts;
  }

  @Override
  public Histogram phaseHistogram(int phase) {
    return reporter.phaseHistogram(phase);
  }

  @Override
  public Histogram windowHistogram(int window) {
    return reporter.windowHistogram(window);
  }

  @Override
  public Histogram serviceHistogram(int phase) {
    return reporter.serviceHistogram(phase);
  }

  @Override
  public Histogram assetHistogram(int phase) {
    return reporter.assetHistogram(phase);
  }

  @Override
  public Map<ErrorKind, List<String>> errorSamples() {
    return samples.copy();
  }

  @Override
  public Map<String, String> scrapeErrors() {
    ServerSampling s = sampler;
    return s == null ? Map.of() : s.scrapeErrors();
  }

  @Override
  public Map<String, Map<String, ServerHistogram>> serverLatency() {
    ServerSampling s = sampler;
    return s == null ? Map.of() : s.served();
  }

  @Override
  public double wallSeconds() {
    return wallSeconds;
  }

  @Override
  public double generatorCpuSeconds() {
    return generatorCpuSeconds;
  }

  @Override
  public long peakInFlight() {
    return reporter.peakInFlight.get();
  }

  @Override
  public List<Targets.Target> targets() {
    return targets.all;
  }

  @Override
  public double triggerFiredAtS() {
    return push.firedAtS;
  }

  @Override
  public Trigger.Result triggerResult() {
    return push.result;
  }

  @Override
  public Map<String, Double> visibleAfterS() {
    return new TreeMap<>(push.visibleAfterS);
  }

  @Override
  public long learnedSwitches() {
    return expectations.learnedSwitches();
  }

  @Override
  public List<Discovered> discovered() {
    return List.copyOf(discovered);
  }

  @Override
  public long startEpochMillis() {
    return startEpochMillis;
  }

  @Override
  public boolean nativeTransport() {
    return nativeTransport;
  }
}
