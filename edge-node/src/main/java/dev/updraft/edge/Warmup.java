package dev.updraft.edge;

import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.Decision;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.edge.image.Resolver;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm before ready: once the image has caught up with the log, the edge sends itself {@code requests}
 * device requests over loopback HTTP (a server of the warm-up's own on 127.0.0.1, the same server code and
 * {@link FrontDoor} code as the devices'; {@link FrontDoor#forWarmup}), spread over every
 * app's lines ({@link AppImage#warmupLines}) and varied as devices vary them (platform, protocol 0 and 1,
 * multipart and JSON, signed with each key of the ring, running nothing, the served update or the embedded one,
 * client ids in every bucket, new connections and kept ones), so that the JIT has
 * compiled the hot path before {@code /readyz} answers 200 and a load balancer sends traffic. It sends at most
 * {@code requests} and stops earlier once its latency curve is flat, the JIT quiet and the hot path compiled
 * by the optimising compiler ({@link WarmupCurve}, {@link HotPath}, {@code --warmup-until-flat}); bounded by
 * {@code timeout}; {@code requests} 0 turns it off. Then it settles ({@link Settle}: a collection, and a wait for the
 * JIT's compile queue to empty, at most {@link Settle#MAX}) before {@code /readyz} answers 200.
 *
 * <p>Warm-up requests are told apart by the server they reach, not by a header: the handler does their
 * whole work, the latency timed and the outcome counted on a registry nobody reads and the check-in sent
 * through the producer marked as a warm-up (the emitter's warm-up lane: ingesters skip it), with no test in
 * the code of whether a request is a warm-up. Such a test was compiled by the JIT as always true, and the first
 * device deoptimised the route (cold-start.md, run 12). The variants also vary what devices vary (client
 * ids in upper and lower case, repeated and changing {@code expo-expect-signature}, a {@code content-length}
 * or none) and, now and then, ask {@code /readyz} and {@code /metrics}, for the same reason.
 * Thread-safe.
 */
final class Warmup {
  private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
  private static final int CONCURRENCY = 16;
  /** Consecutive requests of one variant (a device asks the same way each time; its memos then hit). */
  static final int RUN = 4;
  /** One request in this many asks {@code /readyz} (one in five of those {@code /metrics}), as balancers and scrapers do. */
  static final int OPS_EVERY = 1_000;
  /** How often the hot path's compiled state is read while it is not all compiled. */
  private static final long PENDING_READ_MS = 250;
  /** How often a running warm-up logs how far it got. */
  private static final long PROGRESS_MS = 5_000;

  /** Failed requests after which the warm-up gives up (the node is closing, or its servers cannot be reached). */
  private static final int MAX_FAILURES = 100;

  private volatile boolean done;
  private volatile boolean stopped;
  private volatile long settleMillis;
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicLong answered = new AtomicLong();

  /** Warm-up requests answered so far. */
  long answered() {
    return answered.get();
  }

  /** Ends a running warm-up after its requests in flight (the node is closing). */
  void stop() {
    stopped = true;
  }

  /** Whether {@link #stop} was called (the node is closing). */
  boolean stopped() {
    return stopped;
  }

  /** Whether the warm-up has finished (or was off): {@code /readyz} may answer 200. */
  boolean done() {
    return done;
  }

  /**
   * Waits for the image, then warms up (unless {@code requests} is 0: then {@code /readyz} may answer 200 as
   * soon as the image is ready); completes (never fails) once the image is ready and warm, having logged what
   * the warm-up took, or when the node closes ({@link #stopped()}).
   *
   * @param port the warm-up's server on 127.0.0.1 ({@link HttpVerticle#warmupPort}; -1 when {@code requests} is 0)
   */
  Future<Void> run(Vertx vertx, LiveImage live, int port, int requests, boolean untilFlat, Duration timeout) {
    if (requests <= 0) {
      done = true;
      LOG.info("warm-up off (--warmup-requests 0): ready as soon as the image has caught up with the log");
    }
    Promise<Void> p = Promise.promise();
    vertx.setPeriodic(0, 20, id -> {
      if (stopped) {
        vertx.cancelTimer(id);
        done = true;
        p.complete();
      } else if (live.ready()) {
        vertx.cancelTimer(id);
        if (requests <= 0) {
          p.complete();
          return;
        }
        warm(vertx, live, port, requests, untilFlat, timeout)
            .compose(ignored -> stopped ? Future.succeededFuture() : settle(vertx, live))
            .onComplete(ar -> {
              done = true;
              p.complete();
            });
      }
    });
    return p.future();
  }

  /** The warm-up's last step ({@link Settle}): a collection and an empty compile queue before ready; logged and timed. */
  private Future<Void> settle(Vertx vertx, LiveImage live) {
    return Settle.run(vertx).map(o -> {
      settleMillis = o.millis();
      live.phases().took("settle", o.millis() * 1_000_000L);
      LOG.info("warm-up settled in {} before ready", o.describe());
      return null;
    });
  }

  /** How long the settling after the warm-up took, in ms (0 before it ran, or with the warm-up off). */
  long settleMillis() {
    return settleMillis;
  }

  private Future<Void> warm(Vertx vertx, LiveImage live, int port, int requests, boolean untilFlat, Duration timeout) {
    ResolveImage image = live.image();
    // only the first requests / RUN variants are ever sent (pick): with thousands of apps the full list was
    // hundreds of thousands of requests' headers held at once, built on the event loop
    List<RequestOptions> variants = variants(image, "127.0.0.1", port, requests / RUN + 1);
    if (variants.isEmpty()) {
      LOG.info("warm-up: the image has no line to warm up (apps={}); ready", image.appCount());
      return Future.succeededFuture();
    }
    HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(CONCURRENCY));
    LOG.info("warm-up: up to {} requests over {} variants of {} apps, at most {} s{}, before ready (/readyz says warming-up;"
            + " --warmup-requests 0 skips it)", requests, variants.size(), image.appCount(), timeout.toSeconds(),
        untilFlat ? ", ending once its latency is flat and the hot path compiled" : "");
    long t0 = System.nanoTime();
    // a line every few seconds: a warm-up can take tens of seconds on a small machine, and nothing else is logged meanwhile
    long progress = vertx.setPeriodic(PROGRESS_MS, PROGRESS_MS, id -> LOG.info("warm-up: {} of at most {} requests answered in {} s",
        answered.get(), requests, (System.nanoTime() - t0) / 1_000_000_000L));
    long deadline = t0 + timeout.toNanos();
    AtomicInteger started = new AtomicInteger();
    Map<Integer, Long> statuses = new TreeMap<>();
    // the hot path's compiled state, read off the event loops (a code list takes milliseconds) until all is compiled
    AtomicReference<List<String>> pending = new AtomicReference<>(HotPath.topTier() > 0 ? HotPath.METHODS : null);
    long reader = pending.get() == null ? -1 : vertx.setPeriodic(0, PENDING_READ_MS, id -> vertx.executeBlocking(HotPath::pending, false)
        .onSuccess(p -> {
          pending.set(p);
          if (p == null || p.isEmpty()) {
            vertx.cancelTimer(id);
          }
        }));
    WarmupCurve curve = new WarmupCurve(requests, untilFlat, System::nanoTime, WarmupCurve::jvmCompileMillis, pending::get);
    Promise<Void> all = Promise.promise();
    AtomicInteger running = new AtomicInteger(CONCURRENCY);
    for (int w = 0; w < CONCURRENCY; w++) {
      next(client, variants, requests, deadline, started, statuses, running, all, curve);
    }
    return all.future().eventually(client::close).onComplete(ar -> {
      vertx.cancelTimer(reader);
      vertx.cancelTimer(progress);
      List<String> notCompiled = pending.get();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      live.phases().took("warmup", System.nanoTime() - t0);
      String cut = answered.get() >= requests ? ""
          : stopped ? ", stopped: the node is closing"
          : failures.get() >= MAX_FAILURES ? ", stopped after " + failures.get() + " failed requests"
          : curve.flat() ? ", stopped when flat after " + curve.flatAfter() + " of " + requests + " (" + WarmupCurve.PATIENCE
              + " windows without a " + WarmupCurve.GAIN_PERCENT + " % gain, JIT compiling " + curve.lastJitPercent() + " % of the last, "
              + (curve.lastPending() == null ? "the JVM does not tell what is compiled)" : "the hot path compiled at the top tier)")
          : ", stopped by --warmup-timeout " + timeout.toMillis() + " ms before " + requests;
      Map<Integer, Long> counted;
      synchronized (statuses) {
        counted = new TreeMap<>(statuses);
      }
      String hot = notCompiled == null ? "not known" : notCompiled.isEmpty() ? "all at the top tier" : "not yet at the top tier: " + notCompiled;
      LOG.info("warm-up: {} requests over {} variants of {} apps in {} ms{} (statuses {}, -1: failed); check-ins sent"
          + " marked as warm-up; ready; mean µs per {} requests: {}; JIT compiling {} % of the last window; hot path {}", answered.get(),
          variants.size(), image.appCount(), ms, cut, counted, curve.window(), curve.means(), curve.lastJitPercent(), hot);
    });
  }

  /** Sends request number {@code started} (then the next, until done), adding its latency to {@code curve}. */
  private void next(HttpClient client, List<RequestOptions> variants, int requests, long deadline, AtomicInteger started,
      Map<Integer, Long> statuses, AtomicInteger running, Promise<Void> all, WarmupCurve curve) {
    int n = started.getAndIncrement();
    if (n >= requests || System.nanoTime() - deadline > 0 || stopped || failures.get() >= MAX_FAILURES || curve.flat()) {
      if (running.decrementAndGet() == 0) {
        all.tryComplete();
      }
      return;
    }
    long sent = System.nanoTime();
    client.request(pick(variants, n))
        .compose(req -> req.send().compose(res -> res.body().map(b -> res.statusCode())))
        .onComplete(ar -> {
          if (ar.failed()) {
            failures.incrementAndGet();
          }
          synchronized (statuses) {
            statuses.merge(ar.succeeded() ? ar.result() : -1, 1L, Long::sum);
          }
          curve.record(n, System.nanoTime() - sent);
          answered.incrementAndGet();
          next(client, variants, requests, deadline, started, statuses, running, all, curve);
        });
  }

  /** The request number {@code n} sends: runs of {@value #RUN} of each variant in turn; now and then an ops route. */
  static RequestOptions pick(List<RequestOptions> variants, int n) {
    if (n % OPS_EVERY == OPS_EVERY - 1) {
      RequestOptions v = variants.get(0);
      return new RequestOptions().setMethod(HttpMethod.GET).setHost(v.getHost()).setPort(v.getPort())
          .setURI(n % (OPS_EVERY * 5) == OPS_EVERY * 5 - 1 ? "/metrics" : "/readyz");
    }
    return variants.get((n / RUN) % variants.size());
  }

  /**
   * How a variant's device asks, as expo-updates and other clients do: the {@code accept} header ({@link #ACCEPTS}) and
   * what the device runs ({@link #CURRENT_NONE}, {@link #CURRENT_SERVED}, {@link #CURRENT_EMBEDDED}).
   */
  static final List<String> ACCEPTS = List.of(
      "multipart/mixed,application/expo+json,application/json", // expo-updates on both platforms
      "multipart/mixed",
      "application/expo+json");
  /** No {@code expo-current-update-id} (an older client, or a first launch that sends none). */
  static final int CURRENT_NONE = 0;
  /** Running the update the line serves: the answer is "no update" (most launches of a fleet). */
  static final int CURRENT_SERVED = 1;
  /** Running its embedded bundle, with an earlier update in {@code expo-recent-failed-update-ids}. */
  static final int CURRENT_EMBEDDED = 2;
  /** One variant in this many closes its connection after each answer. */
  static final int CLOSE_EVERY = 8;
  private static final String EMBEDDED_ID = "00000000-0000-4000-8000-000000000000";
  private static final String FAILED_ID = "00000000-0000-4000-8000-0000000000fa";

  /**
   * Requests over every line of every app, each in the ways devices vary them: the first {@code limit} of them. A
   * way real devices ask and the warm-up never did is a branch the JIT compiled as never taken: the first devices
   * then deoptimise the route and run it slower until it is compiled again (a flight of compilations seen right
   * after ready, benchmarks/edge.md). So the variants cover what devices send: the accept list expo-updates sends
   * and single types, the three things a device may run ({@link #CURRENT_NONE} and the others), a signature asked
   * with and without its {@code alg}, client ids in upper and lower case, a {@code content-length} or none, header
   * names in title case with the headers a phone's HTTP stack adds (as expo-updates sends them) and in lower case (as
   * a proxy may pass them on). After a warm-up with lower-case names only, a flight recording showed the first devices'
   * requests deoptimising the header look-ups inlined in the device route ({@code AsciiString.equalsIgnoreCase}).
   */
  static List<RequestOptions> variants(ResolveImage image, String host, int port, int limit) {
    List<RequestOptions> out = new ArrayList<>();
    int k = 0;
    for (String appId : image.appIds()) {
      if (out.size() >= limit) {
        break;
      }
      AppImage app = image.app(appId);
      List<String> keyIds = new ArrayList<>();
      keyIds.add(null);
      if (app.signs()) {
        for (String id : app.keyIds().split(", ")) {
          keyIds.add(id);
        }
      }
      String uri = "/apps/" + java.net.URLEncoder.encode(appId, java.nio.charset.StandardCharsets.UTF_8) + "/manifest";
      for (String[] line : app.warmupLines()) {
        for (String platform : List.of("ios", "android")) {
          String served = servedId(app, platform, line);
          for (String keyId : keyIds) {
            for (int protocol = 0; protocol < 2; protocol++) {
              for (String accept : ACCEPTS) {
                for (int current = CURRENT_NONE; current <= CURRENT_EMBEDDED; current++) {
                  RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost(host).setPort(port).setURI(uri);
                  String clientId = new UUID(0x5741524dL, k).toString();
                  // expo-updates names its headers in title case and its HTTP stack adds some; a proxy may lower-case them all
                  boolean title = k % 2 == 1;
                  o.putHeader(title ? "Expo-Platform" : "expo-platform", platform)
                      .putHeader(title ? "Expo-Runtime-Version" : "expo-runtime-version", line[1])
                      .putHeader(title ? "Expo-Channel-Name" : "expo-channel-name", line[0])
                      .putHeader(title ? "Expo-Protocol-Version" : "expo-protocol-version", Integer.toString(protocol))
                      .putHeader(title ? "Accept" : "accept", accept)
                      // iOS sends its vendor id in upper case
                      .putHeader(title ? "EAS-Client-ID" : "eas-client-id",
                          "ios".equals(platform) ? clientId.toUpperCase(java.util.Locale.ROOT) : clientId)
                      .putHeader(title ? "Expo-Embedded-Update-ID" : "expo-embedded-update-id", EMBEDDED_ID);
                  if (title) {
                    o.putHeader("Expo-API-Version", "1").putHeader("Expo-Updates-Environment", "BARE")
                        .putHeader("Accept-Encoding", "ios".equals(platform) ? "gzip, deflate, br" : "gzip")
                        .putHeader("User-Agent", "ios".equals(platform) ? "App/1 CFNetwork/1498.700.2 Darwin/23.6.0" : "okhttp/4.12.0");
                  }
                  if (current == CURRENT_SERVED && served != null) {
                    o.putHeader(title ? "Expo-Current-Update-ID" : "expo-current-update-id", served);
                  } else if (current == CURRENT_EMBEDDED) {
                    o.putHeader(title ? "Expo-Current-Update-ID" : "expo-current-update-id", EMBEDDED_ID);
                    o.putHeader(title ? "Expo-Recent-Failed-Update-IDs" : "expo-recent-failed-update-ids", "\"" + FAILED_ID + "\"");
                  }
                  if (protocol == 1) {
                    o.putHeader(title ? "Content-Length" : "content-length", "0"); // some clients send one with a GET
                  }
                  if ((k + k / CLOSE_EVERY) % CLOSE_EVERY == 0) { // one in CLOSE_EVERY, in either letter case
                    o.putHeader("connection", "close"); // a phone opens a connection per launch: new connections too
                  }
                  if (keyId != null) {
                    o.putHeader("expo-expect-signature", current == CURRENT_NONE ? "sig, keyid=\"" + keyId + "\""
                        : "sig, keyid=\"" + keyId + "\", alg=\"rsa-v1_5-sha256\"");
                  }
                  k++;
                  out.add(o);
                }
              }
            }
          }
        }
      }
    }
    return out.size() > limit ? new ArrayList<>(out.subList(0, limit)) : out;
  }

  /** The update id a new device on {@code line} is served now, or null when it is served none. */
  private static String servedId(AppImage app, String platform, String[] line) {
    Decision d = Resolver.resolve(app, platform, line[1], line[0], null, null, EMBEDDED_ID, List.of(), 1);
    return d.kind() == Decision.Kind.MANIFEST && d.prepared() != null ? d.prepared().entryId() : null;
  }
}
