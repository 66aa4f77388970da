package dev.updraft.edge;

import dev.updraft.edge.assets.AssetRoute;
import dev.updraft.edge.checkin.CheckInEmitter;
import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.Decision;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.Platforms;
import dev.updraft.edge.image.Prepared;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.edge.image.Resolver;
import dev.updraft.edge.log.EventLogReader;
import dev.updraft.edge.replay.RequestRecorder;
import dev.updraft.events.CheckIn;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge's HTTP surface as one plain Vert.x request handler (no router: the manifest route is the
 * hot path and is matched by hand): {@code GET /apps/{appId}/manifest}, {@code GET /manifest} with
 * {@code expo-app-id} (or {@code ?app=}), {@code /healthz}, {@code /readyz}, {@code /metrics}, and the
 * launch-asset route {@code GET /apps/{appId}/assets/{sha256}} ({@link AssetRoute}).
 *
 * <p>A device request reads the image once, decides with {@link Resolver}, and writes prepared bytes and
 * header values: nothing is serialised or signed here. Every device answer, refusals included, carries
 * {@code expo-protocol-version}, {@code expo-sfv-version: 0} and {@code cache-control: private,
 * max-age=0}; every refusal has a JSON body naming the problem. Each request of an app the edge knows
 * (and each 503 while it does not know yet) hands one check-in to the bounded emitter.
 *
 * <p>Shared by every event loop; thread-safe (all state is immutable or thread-safe).
 */
final class ManifestHandler implements Handler<HttpServerRequest> {
  private static final Logger ACCESS = LoggerFactory.getLogger("dev.updraft.edge.access");
  private static final String APPS = "/apps/";
  private static final String MANIFEST = "/manifest";
  private static final String ASSETS = "/assets/";

  private final Vertx vertx;
  private final LiveImage live;
  private final CheckInEmitter checkins;
  private final RequestRecorder recorder;
  /** The edge's meters; the warm-up's instance has the same meters on a registry nobody reads. */
  private final RequestMetrics metrics;
  /** The check-in lane: {@link CheckInEmitter#DEVICE}, or {@link CheckInEmitter#WARMUP} for the warm-up's instance. */
  private final int lane;
  private final PrometheusMeterRegistry registry;
  private final String edgeId;
  private final double accessLog;
  private final AssetRoute assets;
  /** Nullable: {@code /metrics} is on the {@code --metrics-port} listener, not here (404). */
  private final MetricsEndpoint scrapes;
  private volatile Warmup warmup;
  /** Nullable (tests): no address bucket in the check-ins. */
  private AddressBuckets buckets;

  ManifestHandler(Vertx vertx, LiveImage live, CheckInEmitter checkins, RequestRecorder recorder,
      PrometheusMeterRegistry registry, String edgeId, double accessLog, AssetRoute assets, MetricsEndpoint scrapes) {
    this(vertx, live, checkins, recorder, new RequestMetrics(registry), CheckInEmitter.DEVICE, registry, edgeId, accessLog, assets, scrapes);
  }

  private ManifestHandler(Vertx vertx, LiveImage live, CheckInEmitter checkins, RequestRecorder recorder, RequestMetrics metrics,
      int lane, PrometheusMeterRegistry registry, String edgeId, double accessLog, AssetRoute assets, MetricsEndpoint scrapes) {
    this.scrapes = scrapes;
    this.vertx = vertx;
    this.live = live;
    this.checkins = checkins;
    this.recorder = recorder;
    this.metrics = metrics;
    this.lane = lane;
    this.registry = registry;
    this.edgeId = edgeId;
    this.accessLog = accessLog;
    this.assets = assets;
  }

  /**
   * The warm-up's handler ({@link Warmup}): the same code on the same image, served on a loopback server of
   * its own, with its meters on a registry nobody reads, its check-ins in the emitter's warm-up lane (sent
   * marked), no access log and no recording. Which one answers is decided by the server a request reached,
   * never by a test in the code: the code the warm-up compiles has seen no branch devices take otherwise.
   */
  ManifestHandler forWarmup() {
    ManifestHandler w = new ManifestHandler(vertx, live, checkins, null,
        new RequestMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), CheckInEmitter.WARMUP, registry, edgeId, 0,
        assets, scrapes);
    w.buckets = buckets;
    return w;
  }

  /** Puts the address bucket of each request into its check-in (call before serving). */
  ManifestHandler withAddressBuckets(AddressBuckets b) {
    this.buckets = b;
    return this;
  }

  /** {@code /readyz} answers 200 only once {@code w} is done too (see {@link Warmup}). */
  void warmup(Warmup w) {
    this.warmup = w;
  }

  @Override
  public void handle(HttpServerRequest req) {
    long t0 = System.nanoTime();
    String path = req.path();
    if (path.startsWith(APPS)) {
      int slash = path.indexOf('/', APPS.length());
      if (assets != null && slash > APPS.length() && path.startsWith(ASSETS, slash) && path.indexOf('/', slash + ASSETS.length()) < 0
          && path.length() > slash + ASSETS.length()) {
        String appId = decode(path.substring(APPS.length(), slash));
        if (appId != null) {
          assets.handle(req, appId, path.substring(slash + ASSETS.length()));
          return;
        }
      }
      int end = path.length() - MANIFEST.length();
      if (end > APPS.length() && path.endsWith(MANIFEST) && path.indexOf('/', APPS.length()) == end) {
        String appId = decode(path.substring(APPS.length(), end));
        if (appId != null) {
          device(req, t0, appId);
          return;
        }
      }
    } else if (path.equals(MANIFEST)) {
      device(req, t0, null);
      return;
    } else if (path.equals("/healthz") || path.equals("/readyz") || path.equals("/metrics") && scrapes != null) {
      ops(req, path);
      return;
    }
    refuse(req, t0, 404, protocolOf(req.headers().get(Names.PROTOCOL_VERSION)), "not-found",
        "no route " + ErrorBody.shown(path) + ": devices call GET /apps/{appId}/manifest", null, null);
  }

  private void device(HttpServerRequest req, long t0, String pathAppId) {
    if (recorder != null && recorder.sampled()) {
      recorder.record(System.currentTimeMillis(), req.path(), req.query(), req.headers());
    }
    MultiMap h = req.headers();
    String pv = h.get(Names.PROTOCOL_VERSION);
    AsciiString pvOut = protocolOf(pv);
    if (!HttpMethod.GET.equals(req.method())) {
      req.response().headers().add(Names.ALLOW, Names.GET);
      refuse(req, t0, 405, pvOut, "method-not-allowed",
          "only GET is served on the manifest route: got " + req.method().name(), null, null);
      return;
    }
    if (bodyTooLarge(req)) {
      // devices send no body; close rather than drain what follows
      req.response().headers().add("connection", "close");
      refuse(req, t0, 413, pvOut, "body-too-large",
          "the manifest route takes no request body: got content-length " + ErrorBody.shown(req.getHeader("content-length"))
              + " (at most " + MAX_IGNORED_BODY_BYTES + " bytes are read and discarded)", null, null);
      return;
    }
    if (req.query() != null && !queryDecodes(req)) {
      // before anything reads a query parameter: decoding a bad escape throws, and then no answer is sent
      refuse(req, t0, 400, pvOut, "invalid-query", "the query string " + ErrorBody.shown(req.query())
          + " is not valid percent-encoding (each % must be followed by two hex digits)", null, null);
      return;
    }
    String appId = pathAppId != null ? pathAppId : DeviceRequest.appIdOf(req);
    if (appId == null) {
      refuse(req, t0, 400, pvOut, "missing-app-id",
          "no app id: call /apps/{appId}/manifest, or send the expo-app-id header (or ?app=)", null, null);
      return;
    }
    DeviceRequest r = new DeviceRequest(req, appId, buckets);
    if (!live.ready()) {
      req.response().headers().add(Names.RETRY_AFTER, Names.FIVE);
      refuse(req, t0, 503, pvOut, "not-ready", "this edge is still reading the event log; retry in a few seconds", r, null);
      return;
    }
    if (live.tooStale()) {
      req.response().headers().add(Names.RETRY_AFTER, Names.FIVE);
      refuse(req, t0, 503, pvOut, "image-too-old", Readiness.tooOld(live), r, null);
      return;
    }
    ResolveImage image = live.image();
    AppImage app = image.app(appId);
    if (app == null) {
      refuse(req, t0, 404, pvOut, "unknown-app", "no app " + ErrorBody.shown(appId)
          + " on this server: check updates.url in the app config (…/apps/{appId}/manifest)", null, null);
      return;
    }
    int protocol = pv == null ? 0 : pv.equals("1") ? 1 : pv.equals("0") ? 0 : -1;
    if (protocol < 0) {
      refuse(req, t0, 406, pvOut, "unsupported-protocol-version",
          "expo-protocol-version " + ErrorBody.shown(pv) + " is not supported: this server speaks 0 and 1", r, null);
      return;
    }
    if (pv != null && h.getAll(Names.PROTOCOL_VERSION).size() > 1) {
      refuse(req, t0, 400, pvOut, "duplicate-header", "expo-protocol-version was sent more than once", r, null);
      return;
    }
    String platform = Platforms.of(r.platformRaw);
    if (platform == null) {
      refuse(req, t0, 400, pvOut, CheckIn.REASON_INVALID_PLATFORM, r.platformRaw == null
          ? "expo-platform is missing (header, or ?platform=): send ios or android"
          : "expo-platform must be ios or android: got " + ErrorBody.shown(r.platformRaw), r, null);
      return;
    }
    if (r.runtimeVersion == null) {
      refuse(req, t0, 400, pvOut, "missing-runtime-version",
          "expo-runtime-version is missing (header, or ?runtime-version=): set runtimeVersion in the app config", r, null);
      return;
    }
    String channel = r.channel != null ? r.channel : app.defaultChannel();
    if (channel == null) {
      refuse(req, t0, 400, pvOut, "missing-channel", "expo-channel-name is missing (header, or ?channel-name=): set "
          + "updates.requestHeaders[\"expo-channel-name\"] in the app config, or give the app a default channel "
          + "(updraft apps update " + appId + " --default-channel production)", r, null);
      return;
    }
    int format = AcceptNegotiation.negotiate(r.accept);
    if (format == AcceptNegotiation.NONE) {
      refuse(req, t0, 406, pvOut, "not-acceptable", "Accept " + ErrorBody.shown(r.accept)
          + " allows none of multipart/mixed, application/expo+json, application/json", r, null);
      return;
    }
    int key = signingKey(req, t0, pvOut, r, app);
    if (key == REFUSED) {
      return;
    }
    Decision d = Resolver.resolve(app, platform, r.runtimeVersion, channel, r.clientId, r.currentId, r.embeddedId,
        r.failedIds, protocol);
    if (d.kind() == Decision.Kind.NOT_SERVABLE_V0) {
      refuse(req, t0, 404, pvOut, d.reason(), v0Message(d, r, platform), r, d);
      return;
    }
    answer(req, t0, pvOut, r, app, format, key, d);
  }

  /** What {@link #signingKey} returns when it refused the request. */
  private static final int REFUSED = -2;

  /**
   * The ring index of the key the device asks for in {@code expo-expect-signature}; -1 when it asks for no
   * signature; {@link #REFUSED} when it was refused (the app signs nothing, or has no key of that keyid).
   */
  private int signingKey(HttpServerRequest req, long t0, AsciiString pvOut, DeviceRequest r, AppImage app) {
    if (!r.expectSignature) {
      return -1;
    }
    if (!app.signs()) {
      refuse(req, t0, 400, pvOut, "signing-not-configured", "app " + ErrorBody.shown(r.appId)
          + " has no code-signing key but the request sent expo-expect-signature: register the app's certificate, "
          + "or remove updates.codeSigningCertificate from the app config", r, null);
      return REFUSED;
    }
    int key = app.keyIndex(r.expectKeyId);
    if (key < 0) {
      refuse(req, t0, 400, pvOut, "unknown-key-id", "expo-expect-signature asks for keyid "
          + ErrorBody.shown(r.expectKeyId) + " but app " + ErrorBody.shown(r.appId) + " signs with keyid "
          + app.keyIds() + ": set updates.codeSigningMetadata.keyid to one of them, or register the key this "
          + "build embeds (updraft keys register --key-id)", r, null);
      return REFUSED;
    }
    r.ringKeyId = app.keyIdAt(key);
    return key;
  }

  /**
   * Writes the decided answer in the negotiated format, signed with ring key {@code key} (-1: unsigned),
   * with the {@code expo-manifest-filters} of the branch the device resolved to when the answer carries that
   * branch's manifest or roll back ({@link Decision#carriesFilters}), or the refusal when that format cannot carry
   * the answer.
   */
  private void answer(HttpServerRequest req, long t0, AsciiString pvOut, DeviceRequest r, AppImage app, int format,
      int key, Decision d) {
    Prepared p = d.prepared();
    Buffer body;
    AsciiString type;
    AsciiString signature = null;
    if (format == AcceptNegotiation.MULTIPART) {
      body = key < 0 ? p.multipart() : p.multipartSigned(key);
      type = p.multipartContentType();
    } else if (d.isDirective()) {
      refuse(req, t0, 406, pvOut, "directive-needs-multipart", "the answer is a "
          + (d.kind() == Decision.Kind.ROLLBACK ? "rollBackToEmbedded" : "noUpdateAvailable")
          + " directive, which needs multipart/mixed, but Accept " + ErrorBody.shown(r.accept) + " allows only JSON", r, d);
      return;
    } else if (key >= 0 && app.chainMode(key)) {
      refuse(req, t0, 406, pvOut, "certificate-chain-needs-multipart", "keyid " + ErrorBody.shown(r.expectKeyId)
          + " signs with a certificate chain, which is sent in a certificate_chain part of multipart/mixed, but Accept "
          + ErrorBody.shown(r.accept) + " allows only JSON", r, d);
      return;
    } else {
      body = p.json();
      type = format == AcceptNegotiation.EXPO_JSON ? Names.APPLICATION_EXPO_JSON : Names.APPLICATION_JSON;
      signature = key < 0 ? null : p.signature(key);
      if (key >= 0 && signature == null) {
        body = null;
      }
    }
    if (body == null) {
      refuse(req, t0, 400, pvOut, "update-not-signed", "the answer for app " + ErrorBody.shown(r.appId) + " ("
          + (p.entryId() == null ? "noUpdateAvailable" : "entry " + p.entryId()) + ") has no signature for key "
          + ErrorBody.shown(r.expectKeyId) + ": republish it or renew its manifests", r, d);
      return;
    }
    respond(req, 200, pvOut, type, body, signature, d.carriesFilters() ? app.filtersFor(d.branch()) : null);
    switch (d.kind()) {
      case MANIFEST:
        (CheckIn.OUTCOME_UPDATE.equals(d.outcome()) ? metrics.update : metrics.noUpdate).increment();
        break;
      case ROLLBACK:
        metrics.rollback.increment();
        break;
      default:
        (CheckIn.REASON_CHANNEL_PAUSED.equals(d.reason()) ? metrics.paused : metrics.noUpdate).increment();
    }
    metrics.latency(t0);
    checkIn(r, d.outcome(), d.reason(), d, true);
    accessLog(req, 200, d.outcome(), t0);
  }

  private static String v0Message(Decision d, DeviceRequest r, String platform) {
    String where = "branch " + ErrorBody.shown(d.branch()) + ", runtime version " + ErrorBody.shown(r.runtimeVersion)
        + ", platform " + platform;
    switch (d.reason()) {
      case Resolver.V0_ROLLBACK:
        return "the " + where + " rolled back to the embedded bundle, which protocol 0 clients cannot be told: "
            + "upgrade expo-updates (protocol 1)";
      case CheckIn.REASON_PREVIOUSLY_FAILED:
        return "the newest update for " + where + " failed on this device and nothing earlier is better, and "
            + "protocol 0 cannot be told 'no update'";
      default:
        return "no update for " + where + "; protocol 0 clients cannot be told 'no update'";
    }
  }

  /** The most body bytes a manifest request may announce; its body is discarded unread. */
  static final long MAX_IGNORED_BODY_BYTES = 65_536;

  /**
   * Whether the request announces a body above {@link #MAX_IGNORED_BODY_BYTES} by {@code content-length}
   * (a chunked body is discarded as it streams, never held in memory).
   */
  private static boolean bodyTooLarge(HttpServerRequest req) {
    String cl = req.headers().get(HttpHeaderNames.CONTENT_LENGTH);
    if (cl == null) {
      return false;
    }
    try {
      return Long.parseLong(cl.trim()) > MAX_IGNORED_BODY_BYTES;
    } catch (NumberFormatException e) {
      return false; // the HTTP decoder refuses a malformed content-length before this
    }
  }

  private void refuse(HttpServerRequest req, long t0, int status, AsciiString pv, String code, String message,
      DeviceRequest r, Decision d) {
    respond(req, status, pv, Names.APPLICATION_JSON, ErrorBody.of(code, message), null, null);
    (status == 503 ? metrics.notReady : CheckIn.REASON_CHANNEL_PAUSED.equals(code) ? metrics.paused : metrics.clientError).increment();
    metrics.latency(t0);
    if (r != null) {
      checkIn(r, CheckIn.OUTCOME_ERROR, code, d, false);
    }
    accessLog(req, status, code, t0);
  }

  private static void respond(HttpServerRequest req, int status, AsciiString pv, AsciiString type, Buffer body,
      AsciiString signature, AsciiString filters) {
    HttpServerResponse res = req.response();
    res.setStatusCode(status);
    MultiMap h = res.headers();
    h.add(Names.PROTOCOL_VERSION, pv);
    h.add(Names.SFV_VERSION, Names.V0);
    h.add(Names.CACHE_CONTROL, Names.PRIVATE_NO_AGE);
    h.add(Names.CONTENT_TYPE, type);
    if (signature != null) {
      h.add(Names.SIGNATURE, signature);
    }
    if (filters != null) {
      h.add(Names.MANIFEST_FILTERS, filters);
    }
    res.end(body);
  }

  /** One check-in; {@code served}: whether {@code d}'s entry was actually sent. */
  private void checkIn(DeviceRequest r, String outcome, String reason, Decision d, boolean served) {
    if (checkins == null) {
      return;
    }
    CheckIn c = CheckIn.builder()
        .checkInId(CheckInIds.next())
        .appId(r.appId)
        .platform(r.platformRaw == null ? "" : r.platformRaw)
        .runtimeVersion(r.runtimeVersion)
        .channel(r.channel)
        .clientId(r.clientId)
        .currentUpdateId(r.currentId)
        .embeddedUpdateId(r.embeddedId)
        .failedUpdateIds(r.failedIds)
        .skippedUpdateIds(d == null ? null : d.skippedUpdateIds())
        .outcome(outcome)
        .reason(reason)
        .branch(d == null ? null : d.branch())
        .inBranchRollout(d != null && d.inBranchRollout())
        .rolloutBucket(d == null || d.rolloutBucket() < 0 ? null : d.rolloutBucket())
        .servedUpdateId(served ? d.servedUpdateId() : null)
        .servedGroupId(served ? d.servedGroupId() : null)
        .fatalError(r.fatalError)
        .atEpochMillis(System.currentTimeMillis())
        .edgeId(edgeId)
        .keyId(r.ringKeyId)
        .addressBucket(r.addressBucket)
        .build();
    checkins.offer(c, lane);
  }

  private void accessLog(HttpServerRequest req, int status, String what, long t0) {
    if (accessLog > 0 && (accessLog >= 1 || ThreadLocalRandom.current().nextDouble() < accessLog)) {
      ACCESS.info("{} {} {} {} {}us", req.method().name(), req.uri(), status, what, (System.nanoTime() - t0) / 1000);
    }
  }

  private void ops(HttpServerRequest req, String path) {
    if (!HttpMethod.GET.equals(req.method())) {
      req.response().setStatusCode(405).putHeader(Names.ALLOW, Names.GET).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("method-not-allowed", "only GET is served on " + path));
      return;
    }
    switch (path) {
      case "/healthz":
        req.response().putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON).end("{\"status\":\"up\"}");
        return;
      case "/readyz":
        Readiness.answer(req, live, warmup, staleness());
        return;
      default:
        scrapes.serve(req);
    }
  }

  /** Seconds since the log reader last heard from Kafka, as its gauge says ({@code null} without a reader). */
  private String staleness() {
    Gauge g = registry.find(EventLogReader.STALENESS_GAUGE).gauge();
    return g == null ? "null" : String.format(Locale.ROOT, "%.3f", g.value());
  }

  /** Whether the query decodes (Vert.x then keeps the decoded parameters for the lookups that follow). */
  private static boolean queryDecodes(HttpServerRequest req) {
    try {
      req.params();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static AsciiString protocolOf(String pv) {
    return pv == null || pv.equals("0") ? Names.V0 : Names.V1;
  }

  private static String decode(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    try {
      // a path segment: '+' is itself, not a space as in a query
      String s = QueryStringDecoder.decodeComponent(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
      return s.isEmpty() || s.indexOf('/') >= 0 ? null : s;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
