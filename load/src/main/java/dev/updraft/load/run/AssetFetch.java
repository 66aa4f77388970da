package dev.updraft.load.run;

import static dev.updraft.load.run.Lane.ACCEPT;
import static dev.updraft.load.run.Lane.CHANNEL;
import static dev.updraft.load.run.Lane.CLIENT_ID;
import static dev.updraft.load.run.Lane.CURRENT;
import static dev.updraft.load.run.Lane.EMBEDDED;
import static dev.updraft.load.run.Lane.ONE;
import static dev.updraft.load.run.Lane.PLATFORM;
import static dev.updraft.load.run.Lane.PROTOCOL;
import static dev.updraft.load.run.Lane.REQUESTED;
import static dev.updraft.load.run.Lane.RUNTIME;

import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.check.ResponseCheck;
import dev.updraft.load.fleet.Fleet;
import dev.updraft.load.traffic.Arrival;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.HashMap;
import java.util.Map;

/**
 * A lane's launch-asset follow-ups ({@code --assets}): a storm opener that receives a manifest downloads
 * its launch asset, timed separately, and checks its base64url SHA-256 against the manifest's
 * {@code hash} ({@code --asset-hash first|always|off}). A device on an earlier update asks for a bundle
 * patch as the clients do ({@code A-IM: bsdiff}; {@code --asset-patches false} turns it off); a 226 answer
 * counts as a patch, its bytes apart. Full downloads ask for the encodings each platform's client accepts
 * ({@code --asset-encoding identity} asks for none); bytes are counted as they travel and decoded before
 * hashing. Confined to the lane's event loop.
 */
final class AssetFetch {
  /** What the clients send for assets (protocol.md: iOS's URLSession; Android 57's interceptor). */
  static final String IOS_ENCODINGS = "br, gzip, deflate";
  static final String ANDROID_ENCODINGS = "zstd, br, gzip";
  private final int lane;
  private final LoadRun run;
  private final HttpClientAgent client;
  /** URL and content-encoding → length of the download whose hash was verified ({@code first} mode compares lengths after). */
  private final Map<String, Integer> verifiedAssets = new HashMap<>();
  private volatile int assetsInFlight;

  AssetFetch(int lane, LoadRun run, HttpClientAgent client) {
    this.lane = lane;
    this.run = run;
    this.client = client;
  }

  int inFlight() {
    return assetsInFlight;
  }

  /**
   * Downloads the manifest's launch asset for {@code device} and checks it.
   *
   * @param current the update the device ran when it asked for the manifest (the patch's base)
   */
  void fetch(Arrival a, int device, String current, ResponseCheck.Answer ans) {
    RunConfig c = run.config;
    String url = ans.launchUrl();
    if (c.assetRewriteFrom() != null && url.startsWith(c.assetRewriteFrom())) {
      url = c.assetRewriteTo() + url.substring(c.assetRewriteFrom().length());
    }
    Fleet fleet = run.fleet;
    Fleet.Key key = fleet.key(device);
    MultiMap h = HttpHeaders.headers();
    h.add(ACCEPT, "ios".equals(key.platform()) ? "*/*" : "application/javascript");
    h.add(PLATFORM, key.platform());
    h.add(PROTOCOL, ONE);
    h.add(RUNTIME, key.runtimeVersion());
    h.add(CHANNEL, key.channel());
    h.add(CLIENT_ID, fleet.clientIdHeader(device));
    h.add(CURRENT, current);
    h.add(EMBEDDED, key.embeddedUpdateId());
    h.add(REQUESTED, ans.updateId());
    if (c.assetClientEncodings()) {
      h.add("accept-encoding", "ios".equals(key.platform()) ? IOS_ENCODINGS : ANDROID_ENCODINGS);
    }
    boolean patch = c.assetPatches() && current != null && !current.equalsIgnoreCase(ans.updateId());
    if (patch) {
      // as the clients ask (protocol.md §5): iOS names the updates in Expo-*-Update-ID, Android also in If-None-Match / If-Match
      h.add("a-im", "bsdiff");
      if (!"ios".equals(key.platform())) {
        h.set(ACCEPT, "application/vnd.bsdiff,*/*");
        h.add("if-none-match", current);
        h.add("if-match", ans.updateId());
      }
    }
    RequestOptions ro;
    try {
      ro = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url).setHeaders(h).setTimeout(c.timeout().toMillis());
    } catch (RuntimeException e) {
      run.stats.error(a.window(), ErrorKind.ASSET_IO);
      run.samples.note(ErrorKind.ASSET_IO, "bad asset url " + url + ": " + e);
      return;
    }
    long t0 = System.nanoTime();
    String assetUrl = url;
    assetsInFlight++;
    client.request(ro).compose(HttpClientRequest::send).compose(resp -> resp.body().map(b -> {
      if (run.deviceLog != null && (resp.statusCode() == 226 || resp.statusCode() == 200)) {
        run.deviceLog.note(fleet.clientId(device), key.platform(), ans.updateId(),
            resp.statusCode() == 226 ? DeviceLog.PATCH : DeviceLog.FULL);
      }
      if (resp.statusCode() == 226) {
        patchDone(a, assetUrl, current, resp.getHeader("expo-base-update-id"), b, t0);
      } else {
        assetDone(a, assetUrl, ans.launchHash(), resp.statusCode(), resp.getHeader("content-encoding"), b, t0);
      }
      return b;
    })).onComplete(ar -> {
      assetsInFlight--;
      if (ar.failed()) {
        run.stats.error(a.window(), ErrorKind.ASSET_IO);
        run.samples.note(ErrorKind.ASSET_IO, assetUrl + ": " + ar.cause());
      }
    });
  }

  /**
   * A bundle patch (226): counted with its bytes; its base must be the device's update. The load generator
   * holds no bundles, so it does not apply the patch (BundlePatchIT does, with bspatch).
   */
  private void patchDone(Arrival a, String url, String current, String base, Buffer body, long t0) {
    long now = System.nanoTime();
    run.stats.asset[lane][a.phase()].recordValue(Stats.clampUs(now - t0));
    run.stats.add(a.window(), Stats.ASSETS);
    run.stats.assetBytes(body.length(), true);
    if (base == null || !base.equalsIgnoreCase(current)) {
      run.stats.error(a.window(), ErrorKind.ASSET_STATUS);
      run.samples.note(ErrorKind.ASSET_STATUS, url + ": a patch from " + base + " for a device on " + current);
    }
  }

  private void assetDone(Arrival a, String url, String expectedHash, int status, String encoding, Buffer body, long t0) {
    long now = System.nanoTime();
    run.stats.asset[lane][a.phase()].recordValue(Stats.clampUs(now - t0));
    run.stats.add(a.window(), Stats.ASSETS);
    run.stats.assetBytes(body.length(), false);
    if (status != 200) {
      run.stats.error(a.window(), ErrorKind.ASSET_STATUS);
      run.samples.note(ErrorKind.ASSET_STATUS, url + ": status=" + status);
      return;
    }
    String mode = run.config.assetHash();
    if (expectedHash == null || "off".equals(mode)) {
      return;
    }
    // the same URL travels in several encodings (the server may add encoded copies after the publish), and in one
    // encoding as an interim copy then the stored one (other bytes, same decoded bytes): a new length is decoded and hashed
    String seenAs = encoding == null ? url : url + " " + encoding;
    Integer knownLength = verifiedAssets.get(seenAs);
    if ("first".equals(mode) && knownLength != null && knownLength == body.length()) {
      return;
    }
    byte[] decoded;
    try {
      decoded = Decoding.decode(encoding, body.getBytes());
    } catch (java.io.IOException e) {
      run.stats.error(a.window(), ErrorKind.ASSET_HASH);
      run.samples.note(ErrorKind.ASSET_HASH, url + ": content-encoding " + encoding + " does not decode: " + e.getMessage());
      return;
    }
    String actual = ResponseCheck.sha256Base64Url(decoded);
    if (!actual.equals(expectedHash)) {
      run.stats.error(a.window(), ErrorKind.ASSET_HASH);
      run.samples.note(ErrorKind.ASSET_HASH, url + ": sha256 " + actual + " != manifest hash " + expectedHash);
    } else {
      verifiedAssets.put(seenAs, body.length());
    }
  }

}
