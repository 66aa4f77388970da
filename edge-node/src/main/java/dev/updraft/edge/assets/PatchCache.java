package dev.updraft.edge.assets;

import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.events.AssetEvents.BundlePatch;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bundle patches of the groups devices are served now, held in memory up to {@code --patch-cache-bytes}
 * so that a device's launch-asset request never waits on storage. One background thread of its own
 * watches the image: when it changes it loads the patches of every served group (newest announcements
 * first while the budget lasts) with an HTTP GET of the patch's URL from the event (no credentials on
 * the edge), checks each one's size and SHA-256, and drops patches no served group needs any more. A
 * patch that fails its check or its fetch is never served; it is tried again later (30 s, doubling up
 * to 10 min). Thread-safe: requests read a concurrent map.
 */
public final class PatchCache implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PatchCache.class);

  private final LiveImage live;
  private final long budget;
  private final ConcurrentHashMap<String, Buffer> loaded = new ConcurrentHashMap<>();
  private final Map<String, Long> retryAt = new HashMap<>();
  private final Map<String, Long> backoff = new HashMap<>();
  private final ScheduledExecutorService thread;
  private final HttpClient http;
  private final MeterRegistry registry;
  private final Counter overBudget;
  private volatile long bytes;
  private ResolveImage seen;
  /** By app id: its served groups' patches, worked out for that very {@link AppImage}. Own thread. */
  private final Map<String, AppPatches> byApp = new HashMap<>();

  /**
   * The patches an app's served groups need, as worked out for {@code app}: an image change replaces only the apps it
   * changes, so an app whose {@link AppImage} is the same object needs the same patches (measured at 10,000 apps: passes
   * that worked them out for every app allocated about 2.7 MB each, once a second while publishes came).
   */
  private record AppPatches(AppImage app, List<BundlePatch> patches) {}

  public PatchCache(LiveImage live, long budgetBytes, MeterRegistry registry) {
    this.live = live;
    this.budget = budgetBytes;
    this.registry = registry;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "updraft-edge-patches");
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build();
    Gauge.builder("updraft.edge.patch.cache.bytes", this, c -> c.bytes).description("Bytes of bundle patches held in memory").register(registry);
    Gauge.builder("updraft.edge.patch.cache.entries", loaded, Map::size).description("Bundle patches held in memory").register(registry);
    this.overBudget = Counter.builder("updraft.edge.patch.cache.over.budget")
        .description("Patches of served groups left out because --patch-cache-bytes was full").register(registry);
  }

  /** Starts watching the image (every second). */
  public void start() {
    if (budget > 0) {
      thread.scheduleWithFixedDelay(this::refreshQuietly, 0, 1, TimeUnit.SECONDS);
    }
  }

  /** The bytes of the patch whose SHA-256 is {@code sha256}, or null when they are not loaded (checked). */
  public Buffer get(String sha256) {
    return loaded.get(sha256);
  }

  /** Bytes held. */
  public long bytes() {
    return bytes;
  }

  private void refreshQuietly() {
    try {
      refresh();
    } catch (RuntimeException e) {
      LOG.warn("patch cache: refresh failed: {}", e.toString(), e);
    }
  }

  /** One pass: what served groups need, within the budget; loads what is missing, drops the rest. Own thread. */
  void refresh() {
    ResolveImage image = live.image();
    long now = System.nanoTime();
    if (image == seen && retryAt.isEmpty()) {
      return;
    }
    seen = image;
    Map<String, BundlePatch> wanted = new LinkedHashMap<>();
    long total = 0;
    for (String appId : image.appIds()) {
      for (BundlePatch p : patchesOf(appId, image.app(appId))) {
        if (wanted.containsKey(p.sha256())) {
          continue;
        }
        if (total + p.size() > budget) {
          overBudget.increment();
          continue;
        }
        wanted.put(p.sha256(), p);
        total += p.size();
      }
    }
    byApp.keySet().retainAll(image.appIds());
    loaded.keySet().removeIf(k -> !wanted.containsKey(k));
    retryAt.keySet().removeIf(k -> !wanted.containsKey(k));
    recount();
    for (BundlePatch p : wanted.values()) {
      if (loaded.containsKey(p.sha256())) {
        continue;
      }
      Long at = retryAt.get(p.sha256());
      if (at != null && at - now > 0) {
        continue;
      }
      load(p);
    }
  }

  private List<BundlePatch> patchesOf(String appId, AppImage app) {
    AppPatches known = byApp.get(appId);
    if (known != null && known.app() == app) {
      return known.patches();
    }
    List<BundlePatch> out = new ArrayList<>();
    for (String groupId : app.servedGroupIds()) {
      out.addAll(app.launchAssets().patchesOf(groupId));
    }
    List<BundlePatch> patches = out.isEmpty() ? List.of() : List.copyOf(out);
    byApp.put(appId, new AppPatches(app, patches));
    return patches;
  }

  private void load(BundlePatch p) {
    String failure;
    try {
      byte[] b = fetch(p);
      String sha = HexFormat.of().formatHex(sha256().digest(b));
      if (b.length != p.size()) {
        failure = "size";
      } else if (!sha.equals(p.sha256())) {
        failure = "sha256";
      } else {
        loaded.put(p.sha256(), Buffer.buffer(b));
        retryAt.remove(p.sha256());
        backoff.remove(p.sha256());
        recount();
        fetches("loaded").increment();
        return;
      }
    } catch (IOException e) {
      failure = "io";
      LOG.debug("patch cache: fetching {} failed: {}", p.sha256(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    fetches(failure).increment();
    long next = Math.min(TimeUnit.MINUTES.toNanos(10), backoff.getOrDefault(p.sha256(), TimeUnit.SECONDS.toNanos(15)) * 2);
    backoff.put(p.sha256(), next);
    retryAt.put(p.sha256(), System.nanoTime() + next);
    LOG.warn("patch cache: patch {} ({} -> {}, {}) failed its {} check; it is not served, next try in {} s",
        p.sha256(), p.baseSha256(), p.targetSha256(), p.platform(), failure, TimeUnit.NANOSECONDS.toSeconds(next));
  }

  /** At most size + 1 bytes of the patch's URL (more means it is not the patch). */
  private byte[] fetch(BundlePatch p) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(URI.create(p.url())).timeout(Duration.ofSeconds(60)).header("accept-encoding", "identity").GET().build();
    HttpResponse<InputStream> res = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = res.body()) {
      if (res.statusCode() != 200) {
        throw new IOException("HTTP " + res.statusCode() + " from " + URI.create(p.url()).getHost());
      }
      return in.readNBytes((int) Math.min(Integer.MAX_VALUE - 16, p.size() + 1));
    }
  }

  private Counter fetches(String result) {
    return Counter.builder("updraft.edge.patch.fetches").tag("result", result)
        .description("Patch fetches by the cache: loaded, or the check that failed (io, size, sha256)").register(registry);
  }

  private void recount() {
    long b = 0;
    for (Buffer x : loaded.values()) {
      b += x.length();
    }
    bytes = b;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
