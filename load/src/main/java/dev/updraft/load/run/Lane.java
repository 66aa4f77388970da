package dev.updraft.load.run;

import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.check.ResponseCheck;
import dev.updraft.load.fleet.Expectations;
import dev.updraft.load.fleet.Fleet;
import dev.updraft.load.traffic.Arrival;
import dev.updraft.load.traffic.Profile;
import dev.updraft.load.traffic.Recorded;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.ConnectException;
import java.security.PublicKey;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;

/**
 * One sending lane: an event loop with its own bounded HTTP client pool. The scheduler hands it
 * arrivals; it starts each one unless it is late by more than {@code --max-lag} or the lane already has
 * {@code --max-in-flight} requests outstanding (both counted as drops, never sent later), then validates
 * the response and records the latency from the intended send time. All state is confined to the lane's
 * event loop except the shared, thread-safe {@link Stats}, {@link Fleet}, {@link Expectations} and
 * {@link Targets}.
 */
final class Lane extends VerticleBase {
  static final CharSequence ACCEPT = HttpHeaders.createOptimized("accept");
  static final CharSequence ACCEPT_VALUE = HttpHeaders.createOptimized("multipart/mixed,application/expo+json,application/json");
  static final CharSequence PLATFORM = HttpHeaders.createOptimized("expo-platform");
  static final CharSequence PROTOCOL = HttpHeaders.createOptimized("expo-protocol-version");
  static final CharSequence ONE = HttpHeaders.createOptimized("1");
  static final CharSequence RUNTIME = HttpHeaders.createOptimized("expo-runtime-version");
  static final CharSequence CHANNEL = HttpHeaders.createOptimized("expo-channel-name");
  static final CharSequence CLIENT_ID = HttpHeaders.createOptimized("eas-client-id");
  static final CharSequence CURRENT = HttpHeaders.createOptimized("expo-current-update-id");
  static final CharSequence EMBEDDED = HttpHeaders.createOptimized("expo-embedded-update-id");
  static final CharSequence EXPECT_SIGNATURE = HttpHeaders.createOptimized("expo-expect-signature");
  static final CharSequence REQUESTED = HttpHeaders.createOptimized("expo-requested-update-id");

  private final int id;
  private final LoadRun run;
  private final PublicKey verifyKey;
  private HttpClientAgent client;
  private ResponseCheck check;
  private AssetFetch assets;
  private SplittableRandom rnd;
  private volatile int inFlight;
  private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
  private int cursor;
  private CharSequence expectSignature;

  /** Seconds after which the generator closes an idle keep-alive connection itself. */
  static final int IDLE_CLOSE_SECONDS = 20;

  Lane(int id, LoadRun run, PublicKey verifyKey) {
    this.id = id;
    this.run = run;
    this.verifyKey = verifyKey;
  }

  @Override
  public Future<?> start() {
    RunConfig c = run.config;
    client = vertx.createHttpClient(
        // idle connections closed after 20 s, well before a server's own idle timeout (the edge's is 60 s, the
        // same as this client's default): at equal timeouts a request can race the server's close and fail
        new HttpClientOptions().setKeepAlive(true).setKeepAliveTimeout(IDLE_CLOSE_SECONDS)
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, c.timeout().toMillis())),
        new PoolOptions().setHttp1MaxSize(c.connections()).setMaxWaitQueueSize(-1));
    check = new ResponseCheck(verifyKey);
    assets = new AssetFetch(id, run, client);
    rnd = new SplittableRandom(c.seed() * 1_000_003L + id);
    cursor = (int) ((long) run.fleet.size() * id / Math.max(1, run.lanes()));
    expectSignature = HttpHeaders.createOptimized("sig, keyid=\"" + c.signatureKeyId() + "\", alg=\"rsa-v1_5-sha256\"");
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    return client == null ? Future.succeededFuture() : client.close();
  }

  int inFlight() {
    return inFlight;
  }

  /**
   * One warm-up request: a device's headers, and whether (and how) its answer is checked.
   *
   * @param check whether the answer goes through the run's {@link ResponseCheck} (false: a health path)
   */
  record WarmRequest(MultiMap headers, String runtime, boolean signature, boolean check) {}

  /**
   * Sends {@code n} untimed requests (4 at a time, cycling through {@code requests}) to {@code host:port}, each
   * answer checked as the run checks answers (multipart, signature, manifest), so that connections, class
   * loading and JIT of the generator's own code do not count against the first scheduled requests. Nothing is
   * recorded. Fails on the first request that fails or answer that does not pass its check, naming it.
   */
  Future<Void> warmup(String host, int port, boolean ssl, String uri, java.util.List<WarmRequest> requests, int n) {
    return warmup(host, port, ssl, uri, requests, n, false);
  }

  /** As above; {@code logged}: a target's answers, noted in the device log ({@code --device-log}) when there is one. */
  Future<Void> warmup(String host, int port, boolean ssl, String uri, java.util.List<WarmRequest> requests, int n, boolean logged) {
    io.vertx.core.Promise<Void> done = io.vertx.core.Promise.promise();
    int[] left = {n};
    int[] running = {0};
    context.runOnContext(v -> {
      if (n <= 0 || requests.isEmpty()) {
        done.complete();
        return;
      }
      for (int i = 0; i < Math.min(4, n); i++) {
        warmOne(host, port, ssl, uri, requests, left, running, done, logged);
      }
    });
    return done.future();
  }

  private void warmOne(String host, int port, boolean ssl, String uri, java.util.List<WarmRequest> requests, int[] left,
      int[] running, io.vertx.core.Promise<Void> done, boolean logged) {
    if (left[0] <= 0 || done.future().isComplete()) {
      if (running[0] == 0) {
        done.tryComplete();
      }
      return;
    }
    WarmRequest w = requests.get(left[0] % requests.size());
    left[0]--;
    running[0]++;
    RequestOptions ro = new RequestOptions().setMethod(HttpMethod.GET).setHost(host).setPort(port)
        .setSsl(ssl).setURI(uri).setHeaders(w.headers()).setTimeout(run.config.timeout().toMillis());
    exchange(ro, new Exchange() {
      @Override
      public void failed(Throwable cause) {
        running[0]--;
        done.tryFail(cause);
      }

      @Override
      public void answered(HttpClientResponse resp, Buffer body) {
        running[0]--;
        if (w.check()) {
          ResponseCheck.Answer a = check.check(resp.statusCode(), resp.headers()::get, body.getBytes(), w.runtime(), w.signature());
          if (!a.ok()) {
            done.tryFail(new IllegalStateException("warm-up answer from " + host + ":" + port + uri + " failed its check: "
                + a.error().wire + " " + a.detail()));
            return;
          }
          if (logged && run.deviceLog != null) {
            MultiMap h = w.headers();
            run.deviceLog.checkIn(h.get(CLIENT_ID), h.get(PLATFORM), h.get(CURRENT),
                a.kind() == ResponseCheck.Kind.MANIFEST ? a.updateId() : null);
          }
        }
        warmOne(host, port, ssl, uri, requests, left, running, done, logged);
      }
    });
  }

  /** What becomes of one request: it failed (connect, send, body), or its whole answer arrived. */
  interface Exchange {
    void failed(Throwable cause);

    void answered(HttpClientResponse resp, Buffer body);
  }

  /**
   * One request and its whole answer: the run and its warm-up send through the same calls (the warm-up had a
   * {@code compose} chain of its own). Measured on 2026-12-02, this alone did not spare the run's first seconds
   * their compilations (load/README.md, "Warm-up").
   */
  private void exchange(RequestOptions ro, Exchange x) {
    client.request(ro).onComplete(ar -> {
      if (ar.failed()) {
        x.failed(ar.cause());
        return;
      }
      ar.result().send().onComplete(rr -> {
        if (rr.failed()) {
          x.failed(rr.cause());
          return;
        }
        HttpClientResponse resp = rr.result();
        resp.body().onComplete(br -> {
          if (br.failed()) {
            x.failed(br.cause());
            return;
          }
          x.answered(resp, br.result());
        });
      });
    });
  }

  /** Hands a batch to the lane's event loop (called by the scheduler thread). */
  void submit(Arrival[] batch, int n) {
    queued.addAndGet(n);
    context.runOnContext(v -> {
      for (int i = 0; i < n; i++) {
        send(batch[i]);
      }
      queued.addAndGet(-n);
    });
  }

  /** Arrivals handed over but not yet started, requests in flight, and asset downloads in flight. */
  int outstanding() {
    return queued.get() + inFlight + (assets == null ? 0 : assets.inFlight());
  }

  private void send(Arrival a) {
    Stats stats = run.stats;
    long intendedAbs = run.startNanos + a.intendedNanos();
    long now = System.nanoTime();
    int w = a.window();
    if (now - intendedAbs > run.maxLagNanos) {
      stats.add(w, Stats.DROP_LATE);
      return;
    }
    if (inFlight >= run.config.maxInFlight()) {
      stats.add(w, Stats.DROP_INFLIGHT);
      return;
    }
    Targets.Target target = run.targets.pick();
    MultiMap h = HttpHeaders.headers();
    String uri;
    int device = -1;
    int sentIdx = -1;
    String runtime;
    boolean sigRequested;
    if (a.replay() != null) {
      Recorded r = a.replay();
      for (Map.Entry<String, String> e : r.headers().entrySet()) {
        h.add(e.getKey(), e.getValue());
      }
      uri = r.query() == null || r.query().isEmpty() ? r.path() : r.path() + "?" + r.query();
      runtime = r.headers().getOrDefault("expo-runtime-version", "");
      sigRequested = h.contains(EXPECT_SIGNATURE);
    } else {
      Profile.Phase phase = run.config.profile().phases().get(a.phase());
      device = pickDevice(phase.outdatedShare(), w);
      Fleet fleet = run.fleet;
      Fleet.Key key = fleet.key(device);
      h.add(ACCEPT, ACCEPT_VALUE);
      h.add(PLATFORM, key.platform());
      h.add(PROTOCOL, ONE);
      h.add(RUNTIME, key.runtimeVersion());
      h.add(CHANNEL, key.channel());
      h.add(CLIENT_ID, fleet.clientIdHeader(device));
      sentIdx = fleet.currentIdx(device);
      h.add(CURRENT, run.catalog.id(sentIdx));
      h.add(EMBEDDED, key.embeddedUpdateId());
      if (run.config.signature()) {
        h.add(EXPECT_SIGNATURE, expectSignature);
      }
      uri = run.config.path();
      runtime = key.runtimeVersion();
      sigRequested = run.config.signature();
    }
    RequestOptions ro = new RequestOptions()
        .setMethod(HttpMethod.GET)
        .setHost(target.host)
        .setPort(target.port)
        .setSsl(target.ssl)
        .setURI(uri)
        .setHeaders(h)
        .setTimeout(run.config.timeout().toMillis());
    inFlight++;
    stats.add(w, Stats.SENT);
    target.sent.incrementAndGet();
    long sentNanos = System.nanoTime();
    int dev = device;
    int sent = sentIdx;
    exchange(ro, new Exchange() {
      @Override
      public void failed(Throwable cause) {
        fail(a, target, cause);
      }

      @Override
      public void answered(HttpClientResponse resp, Buffer body) {
        complete(a, target, dev, sent, runtime, sigRequested, resp, body, intendedAbs, sentNanos);
      }
    });
  }

  /**
   * A device for a request: with probability {@code outdatedShare} one that does not run the expected
   * update (looked for in the fleet's seeded order; when none is left within 64 steps, a random device
   * is reset to its embedded bundle: a fresh install), otherwise a uniformly random device.
   */
  private int pickDevice(double outdatedShare, int window) {
    Fleet fleet = run.fleet;
    if (outdatedShare <= 0 || (outdatedShare < 1 && rnd.nextDouble() >= outdatedShare)) {
      return rnd.nextInt(fleet.size());
    }
    int[] order = fleet.order();
    for (int i = 0; i < 64; i++) {
      int d = order[cursor];
      cursor = cursor + 1 == order.length ? 0 : cursor + 1;
      if (run.expectations.outdated(d)) {
        return d;
      }
    }
    int d = rnd.nextInt(fleet.size());
    Fleet.Key k = fleet.key(d);
    fleet.run(d, k.embeddedIdx());
    run.stats.add(window, Stats.FRESH_INSTALLS);
    return d;
  }

  private void fail(Arrival a, Targets.Target target, Throwable cause) {
    inFlight--;
    ErrorKind k = cause instanceof ConnectException ? ErrorKind.CONNECT
        : cause instanceof TimeoutException || String.valueOf(cause.getClass().getName()).contains("Timeout") ? ErrorKind.TIMEOUT
        : ErrorKind.IO;
    run.stats.error(a.window(), k);
    run.samples.note(k, target.base + ": " + cause);
    run.targets.failed(target, System.nanoTime());
  }

  private void complete(Arrival a, Targets.Target target, int device, int sentIdx, String runtime, boolean sigRequested,
      HttpClientResponse resp, Buffer body, long intendedAbs, long sentNanos) {
    try {
      judge(a, target, device, sentIdx, runtime, sigRequested, resp, body, intendedAbs, sentNanos);
    } finally {
      // only now: the end of the run waits for in-flight == 0 before reading the recorders
      inFlight--;
    }
  }

  private void judge(Arrival a, Targets.Target target, int device, int sentIdx, String runtime, boolean sigRequested,
      HttpClientResponse resp, Buffer body, long intendedAbs, long sentNanos) {
    long now = System.nanoTime();
    Stats stats = run.stats;
    int w = a.window();
    stats.add(w, Stats.RESPONSES);
    // from the intended time; from the actual send if the batch left early (at most 0.5 ms)
    stats.latency[id][w].recordValue(Stats.clampUs(now - Math.min(intendedAbs, sentNanos)));
    stats.service[id][a.phase()].recordValue(Stats.clampUs(now - sentNanos));
    int status = resp.statusCode();
    MultiMap rh = resp.headers();
    ResponseCheck.Answer ans = check.check(status, rh::get, body.getBytes(), runtime, sigRequested);
    if (!ans.ok()) {
      stats.error(w, ans.error());
      run.samples.note(ans.error(), target.base + ": " + ans.detail());
      if (ans.error() == ErrorKind.STATUS_5XX) {
        run.targets.failed(target, now);
      } else {
        run.targets.errorOnly(target);
      }
      return;
    }
    if (status == 200) {
      run.targets.answered(target, now);
    }
    if (device >= 0 && run.deviceLog != null) {
      Fleet.Key key = run.fleet.key(device);
      run.deviceLog.checkIn(run.fleet.clientId(device), key.platform(), run.catalog.id(sentIdx),
          ans.kind() == ResponseCheck.Kind.MANIFEST ? ans.updateId() : null);
    }
    if (ans.kind() == ResponseCheck.Kind.MANIFEST) {
      stats.add(w, Stats.MANIFESTS);
    } else {
      stats.add(w, Stats.NO_UPDATES);
    }
    if (device < 0) {
      stats.add(w, Stats.OK);
      return;
    }
    Expectations.Verdict v = run.expectations.judge(device, sentIdx, ans, now);
    if (v.error() != null) {
      stats.error(w, v.error());
      run.samples.note(v.error(), target.base + ": device=" + run.fleet.clientId(device) + " " + (v.detail() == null ? "" : v.detail()));
      run.targets.errorOnly(target);
      return;
    }
    stats.add(w, Stats.OK);
    if (v.stale()) {
      stats.add(w, Stats.STALE);
    }
    if (ans.kind() == ResponseCheck.Kind.MANIFEST && ans.launchUrl() != null
        && run.config.profile().phases().get(a.phase()).assets()) {
      // the update the device ran when it asked: judging has already moved it to the answer
      assets.fetch(a, device, run.catalog.id(sentIdx), ans);
    }
  }
}
