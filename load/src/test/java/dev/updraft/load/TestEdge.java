package dev.updraft.load;

import dev.updraft.load.check.ResponseCheck;
import dev.updraft.load.fleet.Fleet;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small protocol-correct stand-in for an edge, for the generator's tests: per platform a latest
 * update (manifest when the device runs another, {@code noUpdateAvailable} otherwise), a trigger route
 * that publishes a new update, asset bytes, and knobs to be slow, hold responses, or fail. Loopback only.
 */
public final class TestEdge implements AutoCloseable {
  static final String BOUNDARY = "edgeboundary";
  static final String DISCOVERY_ID = Fleet.nameUuid(42, "discovery").toString();
  static final String WARMUP_ID = Fleet.nameUuid(42, "warmup").toString();
  static final byte[] ASSET = "console.log('bundle');".getBytes(StandardCharsets.UTF_8);

  record Seen(long nanos, long epochMillis, String path, String query, Map<String, String> headers) {}

  final Vertx vertx = Vertx.vertx();
  final Map<String, String[]> latest = new ConcurrentHashMap<>();
  final List<Seen> seen = new CopyOnWriteArrayList<>();
  final AtomicInteger fleetRequests = new AtomicInteger();
  final List<String> triggerCalls = new CopyOnWriteArrayList<>();
  /** Delay in ms for the n-th (1-based) fleet request; 0 = none. */
  volatile java.util.function.IntUnaryOperator delayMs = n -> 0;
  /** Status override for the n-th fleet request; 0 = answer normally. */
  volatile java.util.function.IntUnaryOperator status = n -> 0;
  /** Hold every fleet response until this many fleet requests arrived (0 = off). */
  volatile int barrier;
  volatile boolean ready = true;
  /** Replaces the multipart body of the n-th fleet request when it returns non-null. */
  volatile java.util.function.IntFunction<String> brokenBody = n -> null;
  volatile byte[] assetBytes = ASSET;
  /** Answer a launch-asset request that asks for a patch (A-IM: bsdiff) with a 226 from the update it names. */
  volatile boolean answerPatches;
  /** Encode full launch assets by the request's Accept-Encoding (zstd, then br, then gzip) as an edge does. */
  volatile boolean encodeAssets;
  /** The first this many launch-asset requests are answered identity even when encoding (copies not made yet). */
  volatile int identityFirst;
  private final AtomicInteger assetRequests = new AtomicInteger();
  /** The bytes of every full launch asset sent, as they travelled. */
  final java.util.concurrent.atomic.AtomicLong assetBytesSent = new java.util.concurrent.atomic.AtomicLong();
  private final List<Runnable> held = new ArrayList<>();
  private int version = 1;
  final HttpServer server;
  final int port;

  public TestEdge() throws Exception {
    publish();
    server = vertx.createHttpServer().requestHandler(this::handle).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    port = server.actualPort();
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  synchronized void publish() {
    for (String p : List.of("ios", "android")) {
      String id = String.format("%08d-0000-4000-8000-%012d", version, p.equals("ios") ? 1 : 2);
      latest.put(p, new String[] {id, String.format("2026-01-01T00:00:%02d.000Z", version)});
    }
    version++;
  }

  private void handle(HttpServerRequest req) {
    long now = System.nanoTime();
    Map<String, String> h = new TreeMap<>();
    req.headers().forEach(e -> h.put(e.getKey().toLowerCase(java.util.Locale.ROOT), e.getValue()));
    seen.add(new Seen(now, System.currentTimeMillis(), req.path(), req.query(), h));
    String path = req.path();
    if (path.equals("/readyz")) {
      req.response().setStatusCode(ready ? 200 : 503).end();
      return;
    }
    if (path.equals("/metrics")) {
      req.response().putHeader("content-type", "text/plain; version=0.0.4")
          .end("# TYPE process_cpu_usage gauge\nprocess_cpu_usage 0.25\njvm_memory_used_bytes{area=\"heap\",id=\"eden\"} 1048576.0\n"
              + "jvm_memory_used_bytes{area=\"heap\",id=\"old\"} 2097152.0\nupdraft_edge_checkins_dropped_total 3.0\n");
      return;
    }
    if (path.equals("/trigger")) {
      req.body().onSuccess(b -> {
        triggerCalls.add(req.getHeader("authorization") + " " + b.toString());
        publish();
        req.response().setStatusCode(201).end("{\"published\":true}");
      });
      return;
    }
    if (path.equals("/no-such-route")) {
      req.response().setStatusCode(404).end("{\"error\":{\"code\":\"not_found\",\"message\":\"no route\"}}");
      return;
    }
    if (path.startsWith("/assets/")) {
      String base = h.get("expo-current-update-id");
      if (answerPatches && "bsdiff".equals(h.get("a-im")) && base != null) {
        req.response().setStatusCode(226).putHeader("im", "bsdiff").putHeader("expo-base-update-id", base)
            .putHeader("content-type", "application/vnd.bsdiff").end(Buffer.buffer(new byte[] {1, 2, 3, 4, 5, 6, 7}));
        return;
      }
      String accept = h.getOrDefault("accept-encoding", "");
      boolean encode = encodeAssets && assetRequests.incrementAndGet() > identityFirst;
      String encoding = !encode ? null : accept.contains("zstd") ? "zstd" : accept.contains("br") ? "br" : accept.contains("gzip") ? "gzip" : null;
      byte[] bytes = encode(encoding, assetBytes);
      assetBytesSent.addAndGet(bytes.length);
      if (encoding != null) {
        req.response().putHeader("content-encoding", encoding);
      }
      req.response().putHeader("content-type", "application/javascript").end(Buffer.buffer(bytes));
      return;
    }
    boolean fleet = !DISCOVERY_ID.equals(h.get("eas-client-id")) && !WARMUP_ID.equals(h.get("eas-client-id"));
    int n = fleet ? fleetRequests.incrementAndGet() : 0;
    String broken = fleet ? brokenBody.apply(n) : null;
    Runnable answer = broken != null
        ? () -> req.response().putHeader("expo-protocol-version", "1").putHeader("content-type", "multipart/mixed; boundary=" + BOUNDARY)
            .end(broken)
        : () -> answer(req, h, fleet ? status.applyAsInt(n) : 0);
    long delay = fleet ? delayMs.applyAsInt(n) : 0;
    Runnable delayed = delay > 0 ? () -> vertx.setTimer(delay, t -> answer.run()) : answer;
    if (fleet && barrier > 0) {
      List<Runnable> release = null;
      synchronized (held) {
        held.add(delayed);
        if (n >= barrier) {
          release = new ArrayList<>(held);
          held.clear();
        }
      }
      if (release != null) {
        release.forEach(Runnable::run);
      }
      return;
    }
    delayed.run();
  }

  private static byte[] encode(String encoding, byte[] raw) {
    try {
      if (encoding == null) {
        return raw;
      }
      switch (encoding) {
        case "zstd":
          return com.github.luben.zstd.Zstd.compress(raw);
        case "br":
          com.aayushatharva.brotli4j.Brotli4jLoader.ensureAvailability();
          return com.aayushatharva.brotli4j.encoder.Encoder.compress(raw);
        default:
          java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
          try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(out)) {
            gz.write(raw);
          }
          return out.toByteArray();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void answer(HttpServerRequest req, Map<String, String> h, int statusOverride) {
    HttpServerResponse r = req.response();
    r.putHeader("expo-protocol-version", "1").putHeader("expo-sfv-version", "0").putHeader("cache-control", "private, max-age=0");
    if (statusOverride > 0) {
      r.setStatusCode(statusOverride).putHeader("content-type", "application/json").end("{\"error\":{\"code\":\"x\",\"message\":\"y\"}}");
      ready = statusOverride < 500;
      return;
    }
    ready = true;
    String[] u = latest.get(h.getOrDefault("expo-platform", "ios"));
    String part;
    if (u[0].equals(h.get("expo-current-update-id"))) {
      part = "content-type: application/json\r\ncontent-disposition: inline; name=\"directive\"\r\n" + sig(h)
          + "\r\n{\"type\":\"noUpdateAvailable\"}";
    } else {
      String manifest = "{\"id\":\"" + u[0] + "\",\"createdAt\":\"" + u[1] + "\",\"runtimeVersion\":\"" + h.get("expo-runtime-version")
          + "\",\"launchAsset\":{\"hash\":\"" + ResponseCheck.sha256Base64Url(ASSET) + "\",\"key\":\"bundle-" + u[0]
          + "\",\"contentType\":\"application/javascript\",\"url\":\"" + url() + "/assets/bundle-" + u[0] + "\"},\"assets\":[],\"metadata\":{},\"extra\":{}}";
      part = "content-type: application/json\r\ncontent-disposition: inline; name=\"manifest\"\r\n" + sig(h) + "\r\n" + manifest;
    }
    r.putHeader("content-type", "multipart/mixed; boundary=" + BOUNDARY)
        .end("--" + BOUNDARY + "\r\n" + part + "\r\n--" + BOUNDARY + "--\r\n");
  }

  /** A syntactically valid (not verifiable) signature header when one is asked for. */
  private static String sig(Map<String, String> h) {
    return h.containsKey("expo-expect-signature") ? "expo-signature: sig=\"c2lnbmF0dXJl\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"\r\n" : "";
  }

  List<Seen> fleetSeen() {
    List<Seen> l = new ArrayList<>();
    for (Seen s : seen) {
      String id = s.headers().get("eas-client-id");
      if (s.path().endsWith("/manifest") && !DISCOVERY_ID.equals(id) && !WARMUP_ID.equals(id)) {
        l.add(s);
      }
    }
    return l;
  }

  @Override
  public void close() {
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("test edge did not close within 10 s", e);
    }
  }
}
