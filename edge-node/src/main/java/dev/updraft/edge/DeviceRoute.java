package dev.updraft.edge;

import dev.updraft.edge.checkin.CheckInEmitter;
import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.Decision;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.Platforms;
import dev.updraft.edge.image.Prepared;
import dev.updraft.edge.image.Resolver;
import dev.updraft.edge.replay.RequestRecorder;
import dev.updraft.events.CheckIn;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device route, {@code GET /apps/{appId}/manifest} and {@code GET /manifest} with {@code expo-app-id} (or
 * {@code ?app=}), matched by {@link FrontDoor}: the hot path.
 *
 * <p>A device request goes through the request checks in order (method, body, query, app id, readiness, app,
 * protocol version, platform, runtime version, channel, Accept, signing key); the first that fails yields a
 * {@link Refusal}, which {@link #refuse} writes. Otherwise it reads the image once, decides with {@link Resolver},
 * and writes prepared bytes and header values: nothing is serialised or signed here. Every answer, refusals
 * included, carries {@code expo-protocol-version}, {@code expo-sfv-version: 0} and {@code cache-control: private,
 * max-age=0}. Each request of an app the edge knows (and each 503 while it does not know yet) hands one check-in
 * ({@link DeviceCheckIn}) to the bounded emitter.
 *
 * <p>Shared by every event loop; thread-safe (all state is immutable or thread-safe).
 */
final class DeviceRoute {
  private static final Logger ACCESS = LoggerFactory.getLogger("dev.updraft.edge.access");

  /** The most body bytes a manifest request may announce; its body is discarded unread. */
  static final long MAX_IGNORED_BODY_BYTES = 65_536;

  private final LiveImage live;
  private final CheckInEmitter checkins;
  private final RequestRecorder recorder;
  /** The edge's meters; the warm-up's instance has the same meters on a registry nobody reads. */
  private final RequestMetrics metrics;
  /** The check-in lane: {@link CheckInEmitter#DEVICE}, or {@link CheckInEmitter#WARMUP} for the warm-up's instance. */
  private final int lane;
  private final String edgeId;
  private final double accessLog;
  /** Nullable (tests): no address bucket in the check-ins; set by {@link FrontDoor#withAddressBuckets} before serving. */
  AddressBuckets buckets;

  DeviceRoute(LiveImage live, CheckInEmitter checkins, RequestRecorder recorder, RequestMetrics metrics, int lane,
      String edgeId, double accessLog) {
    this.live = live;
    this.checkins = checkins;
    this.recorder = recorder;
    this.metrics = metrics;
    this.lane = lane;
    this.edgeId = edgeId;
    this.accessLog = accessLog;
  }

  /** @param pathAppId the app id in the path, or {@code null} on {@code /manifest} */
  void handle(HttpServerRequest req, long t0, String pathAppId) {
    if (recorder != null && recorder.sampled()) {
      recorder.record(System.currentTimeMillis(), req.path(), req.query(), req.headers());
    }
    MultiMap h = req.headers();
    String pv = h.get(Names.PROTOCOL_VERSION);
    AsciiString pvOut = protocolOf(pv);
    if (!HttpMethod.GET.equals(req.method())) {
      refuse(req, t0, pvOut, Refusal.methodNotAllowed(req.method().name()), null, null);
      return;
    }
    if (bodyTooLarge(req)) {
      refuse(req, t0, pvOut, Refusal.bodyTooLarge(req.getHeader("content-length"), MAX_IGNORED_BODY_BYTES), null, null);
      return;
    }
    if (req.query() != null && !queryDecodes(req)) {
      // before anything reads a query parameter: decoding a bad escape throws, and then no answer is sent
      refuse(req, t0, pvOut, Refusal.invalidQuery(req.query()), null, null);
      return;
    }
    String appId = pathAppId != null ? pathAppId : DeviceRequest.appIdOf(req);
    if (appId == null) {
      refuse(req, t0, pvOut, Refusal.MISSING_APP_ID, null, null);
      return;
    }
    DeviceRequest r = new DeviceRequest(req, appId, buckets);
    if (!live.ready()) {
      refuse(req, t0, pvOut, Refusal.NOT_READY, r, null);
      return;
    }
    if (live.tooStale()) {
      refuse(req, t0, pvOut, Refusal.imageTooOld(Readiness.tooOld(live)), r, null);
      return;
    }
    AppImage app = live.image().app(appId);
    if (app == null) {
      refuse(req, t0, pvOut, Refusal.unknownApp(appId), null, null);
      return;
    }
    int protocol = pv == null ? 0 : pv.equals("1") ? 1 : pv.equals("0") ? 0 : -1;
    if (protocol < 0) {
      refuse(req, t0, pvOut, Refusal.unsupportedProtocol(pv), r, null);
      return;
    }
    if (pv != null && h.getAll(Names.PROTOCOL_VERSION).size() > 1) {
      refuse(req, t0, pvOut, Refusal.DUPLICATE_PROTOCOL_VERSION, r, null);
      return;
    }
    String platform = Platforms.of(r.platformRaw);
    if (platform == null) {
      refuse(req, t0, pvOut, Refusal.invalidPlatform(r.platformRaw), r, null);
      return;
    }
    if (r.runtimeVersion == null) {
      refuse(req, t0, pvOut, Refusal.MISSING_RUNTIME_VERSION, r, null);
      return;
    }
    String channel = r.channel != null ? r.channel : app.defaultChannel();
    if (channel == null) {
      refuse(req, t0, pvOut, Refusal.missingChannel(appId), r, null);
      return;
    }
    int format = AcceptNegotiation.negotiate(r.accept);
    if (format == AcceptNegotiation.NONE) {
      refuse(req, t0, pvOut, Refusal.notAcceptable(r.accept), r, null);
      return;
    }
    int key = SigningKey.choose(r, app);
    if (key == SigningKey.REFUSED) {
      refuse(req, t0, pvOut, SigningKey.refusal(r, app), r, null);
      return;
    }
    Decision d = Resolver.resolve(app, platform, r.runtimeVersion, channel, r.clientId, r.currentId, r.embeddedId,
        r.failedIds, protocol);
    if (d.kind() == Decision.Kind.NOT_SERVABLE_V0) {
      refuse(req, t0, pvOut, Refusal.notServableV0(d, r.runtimeVersion, platform), r, d);
      return;
    }
    answer(req, t0, pvOut, r, app, format, key, d);
  }

  /**
   * Writes the decided answer in the negotiated format, signed with ring key {@code key} ({@link
   * SigningKey#UNSIGNED}: unsigned), with the {@code expo-manifest-filters} of the branch the device resolved to
   * when the answer carries that branch's manifest or roll back ({@link Decision#carriesFilters}), or the refusal
   * when that format cannot carry the answer.
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
      refuse(req, t0, pvOut, Refusal.directiveNeedsMultipart(d, r.accept), r, d);
      return;
    } else if (key >= 0 && app.chainMode(key)) {
      refuse(req, t0, pvOut, Refusal.chainNeedsMultipart(r.expectKeyId, r.accept), r, d);
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
      refuse(req, t0, pvOut, Refusal.notSigned(r.appId, p.entryId(), r.expectKeyId), r, d);
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

  /**
   * Writes {@code no} (its header first), counts it and logs it; hands on an {@code error} check-in when the
   * request got far enough to be one ({@code r} non-null). {@link FrontDoor} refuses a request no route matches here.
   *
   * @param d the decision the refusal follows, or {@code null}
   */
  void refuse(HttpServerRequest req, long t0, AsciiString pv, Refusal no, DeviceRequest r, Decision d) {
    if (no.header != null) {
      req.response().headers().add(no.header, no.headerValue);
    }
    respond(req, no.status, pv, Names.APPLICATION_JSON, no.body(), null, null);
    (no.status == 503 ? metrics.notReady : CheckIn.REASON_CHANNEL_PAUSED.equals(no.code) ? metrics.paused
        : metrics.clientError).increment();
    metrics.latency(t0);
    if (r != null) {
      checkIn(r, CheckIn.OUTCOME_ERROR, no.code, d, false);
    }
    accessLog(req, no.status, no.code, t0);
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
    if (checkins != null) {
      checkins.offer(DeviceCheckIn.of(r, outcome, reason, d, served, edgeId), lane);
    }
  }

  private void accessLog(HttpServerRequest req, int status, String what, long t0) {
    if (accessLog > 0 && (accessLog >= 1 || ThreadLocalRandom.current().nextDouble() < accessLog)) {
      ACCESS.info("{} {} {} {} {}us", req.method().name(), req.uri(), status, what, (System.nanoTime() - t0) / 1000);
    }
  }

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

  /** Whether the query decodes (Vert.x then keeps the decoded parameters for the lookups that follow). */
  private static boolean queryDecodes(HttpServerRequest req) {
    try {
      req.params();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The protocol version an answer names: 0 when the device sent none or 0, otherwise 1. */
  static AsciiString protocolOf(String pv) {
    return pv == null || pv.equals("0") ? Names.V0 : Names.V1;
  }
}
