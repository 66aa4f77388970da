package dev.updraft.edge.assets;

import dev.updraft.common.AcceptEncoding;
import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.events.CheckIn;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The edge's launch-asset route, {@code GET /apps/{appId}/assets/{sha256}}: the URL every manifest gives
 * its launch asset when the control plane runs with {@code --edge-public-url}.
 *
 * <p>A request asking for a patch ({@code A-IM: bsdiff}) that names the update it runs (iOS:
 * {@code Expo-Current-Update-ID}; Android: {@code If-None-Match}; quoted or not) and the update it wants
 * (iOS: {@code Expo-Requested-Update-ID}; Android: {@code If-Match}) gets, when a patch from that
 * update's bundle is loaded in the {@link PatchCache}, {@code 226} with {@code im: bsdiff},
 * {@code expo-base-update-id} and {@code delta-base} (the running update), {@code etag} (the requested
 * update, unquoted), {@code content-type: application/vnd.bsdiff} and {@code cache-control: private,
 * no-store}, the body from memory. Anything else gets the full bundle, 200, in the encoding the client's
 * {@code Accept-Encoding} prefers among those stored after the publish (zstd, br, gzip, identity), streamed
 * from the storage URL of the event: the edge sets {@code content-encoding} itself, and the device's
 * conditional headers never reach the object store (which would answer 412 or 304). Until the stored
 * copies exist (the control plane makes them off the request path, seconds after the publish), a client
 * that takes zstd, br or gzip gets an {@link InterimEncodings interim copy} the edge encodes once, never
 * the identity bundle. Conditional headers are never evaluated here: no 304, no 412, and never a 226
 * without a patch. A full request without {@code A-IM} that follows a 226 to the same device is a patch it
 * could not use ({@link PatchFailures}), and a base whose patches fail is served no more patches.
 *
 * <p>Only final bytes are {@code immutable} for a year: the stored copy, answering a request that asked
 * for no patch, or one whose patch can never come (no base named, or the base is the update requested).
 * An interim copy, and a full bundle sent for a patch request whose base has no patch (yet), get
 * {@code public, max-age=30}. {@code Vary} names what chose the answer: {@code accept-encoding, a-im} for
 * a request without a patch request; with one, also the headers naming the base and the requested update.
 *
 * <p>Shared by every event loop; thread-safe. The only I/O is the streamed full bundle, and the identity
 * bytes an interim copy is made from.
 */
public final class AssetRoute {
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");
  private static final String PATCH_TYPE = "application/vnd.bsdiff";
  /** What chose a full answer to a request that asked for no patch. */
  static final String VARY_FULL = "accept-encoding, a-im";
  /** What chose an answer to a patch request: the encoding, and the headers naming the base and the requested update. */
  static final String VARY_PATCH = "accept-encoding, a-im, expo-current-update-id, expo-requested-update-id, if-none-match, if-match";
  /** Final bytes: the stored copy a device would get from now on. */
  static final String IMMUTABLE = "public, max-age=31536000, immutable";
  /** Bytes a later job improves (an interim copy, a full bundle before the patch job ran): kept briefly. */
  static final String INTERIM = "public, max-age=30";
  /** Bytes held in interim copies in all. */
  static final long INTERIM_MAX_BYTES = 64L << 20;

  private final LiveImage live;
  private final PatchCache cache;
  private final AssetMetrics metrics;
  private final PatchFailures failures;
  private final Consumer<CheckIn> reports;
  private final HttpClientAgent upstream;
  private final InterimEncodings interim;

  /**
   * @param reports nullable (check-ins off): where a patch served or failed, and a GET's full bytes once they start
   *     (reason {@code full-served}, for the download funnel), go as a check-in (outcome {@code patch}; the caller
   *     adds its id and the edge's), never blocking
   */
  public AssetRoute(Vertx vertx, LiveImage live, PatchCache cache, MeterRegistry registry, Consumer<CheckIn> reports) {
    this.reports = reports;
    this.live = live;
    this.cache = cache;
    this.metrics = new AssetMetrics(registry);
    this.failures = new PatchFailures(registry, System::currentTimeMillis);
    this.upstream = vertx.createHttpClient(
        new HttpClientOptions().setConnectTimeout(10_000).setIdleTimeout(60).setKeepAlive(true).setDecompressionSupported(false),
        new PoolOptions().setHttp1MaxSize(64));
    this.interim = new InterimEncodings(vertx, upstream, INTERIM_MAX_BYTES, metrics);
  }

  /**
   * Answers {@code /apps/{appId}/assets/{file}}.
   *
   * @param file the last path segment: the launch asset's SHA-256 in hex (an extension after it is ignored)
   */
  public void handle(HttpServerRequest req, String appId, String file) {
    HttpServerResponse res = req.response();
    if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
      res.putHeader("allow", "GET, HEAD");
      refuse(res, 405, "method-not-allowed", "only GET and HEAD are served on the asset route: got " + req.method().name());
      return;
    }
    if (!live.ready()) {
      res.putHeader("retry-after", "5");
      refuse(res, 503, "not-ready", "this edge is still reading the event log; retry in a few seconds");
      return;
    }
    AppImage app = live.image().app(appId);
    int dot = file.indexOf('.');
    String sha = (dot < 0 ? file : file.substring(0, dot)).toLowerCase(Locale.ROOT);
    LaunchAssetStored asset = app == null || !SHA.matcher(sha).matches() ? null : app.launchAssets().asset(sha);
    if (asset == null) {
      refuse(res, 404, "not-found", app == null ? "no app " + shown(appId) + " on this server" : "no launch asset " + shown(file) + " in app " + appId);
      return;
    }
    MultiMap h = req.headers();
    String miss = null;
    String base = id(first(h.get("expo-current-update-id"), h.get("if-none-match")));
    String client = id(h.get("eas-client-id"));
    boolean patchAsked = wantsPatch(h.getAll("a-im"));
    if (patchAsked) {
      String requested = id(first(h.get("expo-requested-update-id"), h.get("if-match")));
      BundlePatch p = base == null ? null : app.launchAssets().patch(sha, base);
      Buffer bytes = p == null ? null : cache.get(p.sha256());
      if (base == null) {
        miss = "no-base";
      } else if (base.equals(requested)) {
        miss = "same-update";
      } else if (p == null) {
        miss = "unknown-base";
      } else if (bytes == null) {
        miss = "not-loaded";
      } else if (failures.stopped(appId, base)) {
        miss = "failing-base";
      } else {
        if (req.method() == HttpMethod.GET) {
          failures.served(appId, sha, base, client);
          report(appId, h, base, client, requested, CheckIn.REASON_PATCH_SERVED);
        }
        patch(req, res, base, requested, bytes, asset, h.get("accept-encoding"));
        return;
      }
      metrics.miss(miss);
    } else if (base != null && req.method() == HttpMethod.GET
        && failures.full(appId, sha, base, client, id(h.get("expo-embedded-update-id")))) {
      report(appId, h, base, client, id(first(h.get("expo-requested-update-id"), h.get("if-match"))), CheckIn.REASON_PATCH_FAILED);
    }
    // a full answer to a patch request is final only when no later patch job can change it
    boolean patchFinal = !patchAsked || "no-base".equals(miss) || "same-update".equals(miss);
    full(req, res, asset, patchAsked ? VARY_PATCH : VARY_FULL, patchFinal, appId);
  }

  /** A GET's full bytes start: reported for the download funnel (outcome patch, reason full-served). */
  private void fullSent(HttpServerRequest req, String appId) {
    MultiMap h = req.headers();
    report(appId, h, id(first(h.get("expo-current-update-id"), h.get("if-none-match"))), id(h.get("eas-client-id")),
        id(first(h.get("expo-requested-update-id"), h.get("if-match"))), CheckIn.REASON_FULL_SERVED);
  }

  private void report(String appId, MultiMap h, String base, String client, String requested, String reason) {
    if (reports == null) {
      return;
    }
    String platform = h.get("expo-platform");
    reports.accept(CheckIn.builder().appId(appId).platform(platform == null ? "" : platform.toLowerCase(Locale.ROOT))
        .runtimeVersion(h.get("expo-runtime-version")).clientId(client).currentUpdateId(base)
        .embeddedUpdateId(id(h.get("expo-embedded-update-id"))).servedUpdateId(requested).outcome(CheckIn.OUTCOME_PATCH).reason(reason)
        .atEpochMillis(System.currentTimeMillis()).build());
  }

  private void patch(HttpServerRequest req, HttpServerResponse res, String base, String requested, Buffer bytes, LaunchAssetStored asset,
      String acceptEncoding) {
    res.setStatusCode(226);
    res.putHeader("im", "bsdiff");
    res.putHeader("expo-base-update-id", base);
    res.putHeader("delta-base", base);
    if (requested != null) {
      res.putHeader("etag", requested);
    }
    res.putHeader("content-type", PATCH_TYPE);
    res.putHeader("cache-control", "private, no-store");
    res.putHeader("vary", VARY_PATCH);
    res.putHeader("content-length", Integer.toString(bytes.length()));
    AssetVariant instead = asset.variant(chosen(asset, acceptEncoding));
    metrics.patch(bytes.length(), instead == null ? asset.size() : instead.size());
    if (req.method() == HttpMethod.HEAD) {
      res.end();
    } else {
      res.end(bytes);
    }
  }

  /**
   * The full bundle: in the preferred stored encoding, streamed from storage; or, while only the identity
   * bytes are stored and the client takes an encoding, an {@link InterimEncodings interim copy} from memory.
   */
  private void full(HttpServerRequest req, HttpServerResponse res, LaunchAssetStored asset, String vary, boolean patchFinal,
      String appId) {
    String accept = req.getHeader("accept-encoding");
    boolean encodedStored = asset.variants().size() > 1;
    String make = encodedStored ? null : InterimEncodings.choose(accept);
    if (make == null) {
      stored(req, res, asset, vary, patchFinal, appId); // the stored copies, or identity for a client that takes no encoding
      return;
    }
    req.pause();
    Context here = Vertx.currentContext();
    interim.copy(asset, make).onComplete(ar -> here.runOnContext(nothing -> {
      req.resume();
      if (ar.failed() || ar.result() == InterimEncodings.NOT_SMALLER) {
        stored(req, res, asset, vary, false, appId); // identity, until the stored copies exist
        return;
      }
      Buffer bytes = ar.result();
      res.putHeader("content-type", asset.contentType());
      res.putHeader("content-encoding", make);
      res.putHeader("cache-control", INTERIM);
      res.putHeader("vary", vary);
      res.putHeader("content-length", Integer.toString(bytes.length()));
      metrics.interim("served");
      metrics.full(bytes.length());
      if (req.method() == HttpMethod.HEAD) {
        res.end();
      } else {
        fullSent(req, appId);
        res.end(bytes);
      }
    })); // the copy may complete on another request's event loop: answer on this one
  }

  /** The full bundle in the preferred stored encoding, streamed from storage; {@code immutable} when {@code last}. */
  private void stored(HttpServerRequest req, HttpServerResponse res, LaunchAssetStored asset, String vary, boolean last,
      String appId) {
    AssetVariant v = asset.variant(chosen(asset, req.getHeader("accept-encoding")));
    if (v == null) {
      refuse(res, 406, "not-acceptable", "Accept-Encoding " + shown(req.getHeader("accept-encoding")) + " refuses every stored encoding");
      return;
    }
    res.putHeader("content-type", asset.contentType());
    if (!v.encoding().equals(AssetVariant.IDENTITY)) {
      res.putHeader("content-encoding", v.encoding());
    }
    res.putHeader("cache-control", last ? IMMUTABLE : INTERIM);
    res.putHeader("vary", vary);
    res.putHeader("content-length", Long.toString(v.size()));
    if (req.method() == HttpMethod.HEAD) {
      res.end();
      return;
    }
    req.pause();
    upstream
        .request(new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(v.url()).putHeader("accept-encoding", "identity"))
        .compose(r -> r.send())
        .onComplete(ar -> {
          req.resume();
          if (ar.failed()) {
            upstreamFailed(res, "storage could not be reached: " + ar.cause().getMessage());
            return;
          }
          HttpClientResponse up = ar.result();
          String len = up.getHeader("content-length");
          if (up.statusCode() != 200 || (len != null && !len.equals(Long.toString(v.size())))) {
            up.end();
            upstreamFailed(res, "storage answered HTTP " + up.statusCode() + (len == null ? "" : " with " + len + " bytes")
                + " for the " + v.encoding() + " bytes (" + v.size() + " expected)");
            return;
          }
          metrics.full(v.size());
          fullSent(req, appId);
          // a device that goes away mid-download: drop the storage connection rather than leave it half read
          up.pipeTo(res).onFailure(t -> up.request().reset());
        });
  }

  private void upstreamFailed(HttpServerResponse res, String why) {
    metrics.upstreamFailure();
    res.headers().remove("content-encoding").remove("content-length").remove("cache-control").remove("content-type");
    res.putHeader("retry-after", "5");
    refuse(res, 502, "storage-unavailable", why + "; the device tries again at its next check");
  }

  private static String chosen(LaunchAssetStored asset, String acceptEncoding) {
    List<String> held = new ArrayList<>(4);
    for (AssetVariant v : asset.variants()) {
      held.add(v.encoding());
    }
    return AcceptEncoding.choose(acceptEncoding, held);
  }

  /** Whether an {@code A-IM} header (RFC 3229) lists {@code bsdiff} with a q above 0. */
  static boolean wantsPatch(List<String> values) {
    for (String v : values) {
      for (String part : v.split(",")) {
        String[] bits = part.trim().split(";");
        if (!bits[0].trim().equalsIgnoreCase("bsdiff")) {
          continue;
        }
        boolean refused = false;
        for (int i = 1; i < bits.length; i++) {
          String b = bits[i].trim().toLowerCase(Locale.ROOT);
          refused |= b.startsWith("q=") && b.substring(2).trim().matches("0(\\.0*)?");
        }
        if (!refused) {
          return true;
        }
      }
    }
    return false;
  }

  /** An update id as a header carries it (an entity tag, weak or strong, quoted or not), lower case; null when empty. */
  static String id(String raw) {
    if (raw == null) {
      return null;
    }
    String v = raw.trim();
    int comma = v.indexOf(',');
    if (comma >= 0) {
      v = v.substring(0, comma).trim(); // a list of tags: the first
    }
    if (v.startsWith("W/") || v.startsWith("w/")) {
      v = v.substring(2);
    }
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      v = v.substring(1, v.length() - 1);
    }
    v = v.trim().toLowerCase(Locale.ROOT);
    return v.isEmpty() || v.equals("*") ? null : v;
  }

  private static String first(String a, String b) {
    return a != null && !a.isBlank() ? a : b;
  }

  private static void refuse(HttpServerResponse res, int status, String code, String message) {
    res.setStatusCode(status);
    res.putHeader("content-type", "application/json");
    res.putHeader("cache-control", "private, no-store");
    res.end("{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + escape(message) + "\"}}");
  }

  private static String shown(String s) {
    if (s == null) {
      return "(none)";
    }
    return "'" + (s.length() > 80 ? s.substring(0, 80) + "…" : s) + "'";
  }

  private static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Closes the client to storage. */
  public void close() {
    interim.close();
    upstream.close();
  }
}
