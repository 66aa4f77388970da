package dev.updraft.controlplane.patches;

import dev.updraft.common.AcceptEncoding;
import dev.updraft.common.ExpoUpdatesVersion;
import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.Deliveries;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work after one group's publish, run by {@link PatchWorker} (one at a time): store the zstd, br and
 * gzip copies of its launch assets (and of its other compressible assets), then, with patches on,
 * compute a {@code BSDIFF40} patch from each base bundle to each of its launch assets and keep those at
 * most half the gzip size of the full bundle. Returns the events recording it; the stored bytes are
 * content-addressed, so running a job again after a crash stores nothing twice. Worker thread.
 *
 * <p>Memory: one diff at a time holds about {@link #DIFF_MEMORY_FACTOR} times the larger of its two bundles;
 * a diff that would hold more than the job's budget (a quarter of the heap) is not made: the patch is
 * skipped and counted ({@code Tally.patchesSkipped}), and devices get the full bundle. However many
 * groups are published at once, the worker holds at most that budget of bundles (their jobs wait in the
 * state, which holds nothing more for them).
 */
final class GroupJob {
  private static final Logger LOG = LoggerFactory.getLogger(GroupJob.class);
  static final String PATCH_TYPE = "application/vnd.bsdiff";

  private final AssetStorage storage;
  private final Path tmp;
  private final Settings settings;
  /** What one diff may hold: about {@link #DIFF_MEMORY_FACTOR} times its larger bundle. */
  private final long diffBudget;
  /** Memory of a diff per byte of its larger bundle (both bundles, the suffix array, the patch, its check). */
  static final long DIFF_MEMORY_FACTOR = 12;
  /** group/platform/base sha diffed by this instance (kept or dropped): not diffed again. Worker thread. */
  private final Set<String> tried = new java.util.HashSet<>();

  /** What the job is allowed. */
  record Settings(boolean edges, boolean encodeOthers, int bases, long maxBundleBytes, boolean fastEncoding) {}

  /** Counts for metrics and logs. */
  static final class Tally {
    int patchesKept;
    int patchesDropped;
    /** Patches not made: the diff would have held more than the budget. */
    int patchesSkipped;
    long patchBytes;
    long encodedBytes;
    long diffNanos;
  }

  GroupJob(AssetStorage storage, Path tmp, Settings settings) {
    this(storage, tmp, settings, Runtime.getRuntime().maxMemory() / 4);
  }

  /** @param diffBudget the bytes one diff may hold (estimated as {@link #DIFF_MEMORY_FACTOR} x its larger bundle) */
  GroupJob(AssetStorage storage, Path tmp, Settings settings, long diffBudget) {
    this.diffBudget = diffBudget;
    this.storage = storage;
    this.tmp = tmp;
    this.settings = settings;
  }

  /**
   * The events recording the work for {@code g}.
   *
   * @param fleet update ids the fleet runs most for each platform (may be empty)
   * @param stopped base update ids whose patches devices could not use ({@link PatchOutcomes}): never a base
   */
  List<EventPayload> run(ControlState s, AppState app, GroupState g, Map<String, List<String>> fleet, Set<String> stopped, Tally tally)
      throws IOException {
    Deliveries d = s.deliveries(app.appId());
    List<EventPayload> out = new ArrayList<>();
    List<BundlePatch> patches = new ArrayList<>();
    Set<String> encoded = new LinkedHashSet<>();
    for (PlatformUpdate p : g.group().platforms()) {
      List<Bodies.Named> assets = Bodies.assets(p.body());
      if (assets.isEmpty()) {
        continue;
      }
      String launch = assets.get(0).sha256Hex();
      LaunchAssetStored stored = d.launchAssets().get(launch);
      // without edges nothing records the copies, so a group publishing the same bundle again finds them stored
      if (encoded.add(launch) && (stored == null || stored.variants().size() <= 1)
          && (settings.edges() || settings.encodeOthers() && !storage.hasVariants(app.appId(), launch, Encodings.made()))) {
        LaunchAssetStored withVariants = encodeLaunch(app.appId(), launch, tally);
        if (settings.edges()) {
          out.add(withVariants);
        }
        stored = withVariants;
      }
      if (settings.encodeOthers()) {
        for (Bodies.Named a : assets.subList(1, assets.size())) {
          if (encoded.add(a.sha256Hex()) && ContentTypes.compressible(a.contentType())) {
            encodeOther(app.appId(), a.sha256Hex(), tally);
          }
        }
      }
      if (settings.edges() && settings.bases() > 0 && stored != null) {
        patches.addAll(patchesFor(s, app, g, p, launch, stored, fleet.getOrDefault(p.platform(), List.of()), stopped, tally));
      }
    }
    out.add(new PatchesComputed(g.groupId(), patches));
    return out;
  }

  private LaunchAssetStored encodeLaunch(String appId, String sha, Tally tally) throws IOException {
    LaunchAssetStored identity = LaunchAnnouncer.identity(storage, appId, sha);
    List<AssetVariant> variants = new ArrayList<>(identity.variants());
    for (Encodings.Encoded e : encode(appId, sha, identity.size(), tally)) {
      variants.add(new AssetVariant(e.encoding(), e.sha256Hex(), e.size(), storage.urls(appId).url(e.sha256Hex(), null, ContentTypes.OCTET_STREAM)));
    }
    return new LaunchAssetStored(sha, identity.contentType(), identity.size(), variants);
  }

  private void encodeOther(String appId, String sha, Tally tally) throws IOException {
    var s = storage.stat(appId, sha);
    if (s != null && !storage.hasVariants(appId, sha, Encodings.made())) {
      encode(appId, sha, s.size(), tally);
    }
  }

  /** Stores the encodings of one asset; returns them (their temporary files already deleted). */
  private List<Encodings.Encoded> encode(String appId, String sha, long size, Tally tally) throws IOException {
    Path source = copy(appId, sha);
    try {
      List<Encodings.Encoded> all = Encodings.encode(source, size, tmp, settings.fastEncoding());
      try {
        for (Encodings.Encoded e : all) {
          storage.putVariant(appId, sha, e.encoding(), e.file(), e.sha256Hex(), e.md5Hex(), e.size());
          tally.encodedBytes += e.size();
        }
      } finally {
        for (Encodings.Encoded e : all) {
          Files.deleteIfExists(e.file());
        }
      }
      return all;
    } finally {
      Files.deleteIfExists(source);
    }
  }

  private List<BundlePatch> patchesFor(
      ControlState s, AppState app, GroupState g, PlatformUpdate p, String target, LaunchAssetStored stored, List<String> fleet,
      Set<String> stopped, Tally tally) throws IOException {
    return diffAll(app, g, p, target, stored, bases(s, app, g, p.platform(), target, fleet, stopped), tally);
  }

  /** A patch from each of {@code bases} (base bundle → update ids) to {@code target}, those worth keeping. */
  private List<BundlePatch> diffAll(
      AppState app, GroupState g, PlatformUpdate p, String target, LaunchAssetStored stored, Map<String, Set<String>> bases, Tally tally)
      throws IOException {
    List<BundlePatch> out = new ArrayList<>();
    for (String base : bases.keySet()) {
      tried.add(tryKey(g.groupId(), p.platform(), base));
    }
    if (bases.isEmpty()) {
      return out;
    }
    long gzip = gzipSize(app.appId(), target, stored);
    if (stored.size() > settings.maxBundleBytes()) {
      LOG.info("patches: launch asset {} of group {} is {} bytes, above --patch-max-bundle-bytes {}; not patched", target, g.groupId(), stored.size(), settings.maxBundleBytes());
      return out;
    }
    if (stored.size() * DIFF_MEMORY_FACTOR > diffBudget) {
      tally.patchesSkipped += bases.size();
      LOG.info("patches: launch asset {} of group {} is {} bytes: a diff would hold about {} bytes, more than the budget of {}; {} patches"
          + " skipped", target, g.groupId(), stored.size(), stored.size() * DIFF_MEMORY_FACTOR, diffBudget, bases.size());
      return out;
    }
    byte[] targetBytes = read(app.appId(), target, settings.maxBundleBytes());
    for (Map.Entry<String, Set<String>> b : bases.entrySet()) {
      var baseStat = storage.stat(app.appId(), b.getKey());
      long larger = Math.max(stored.size(), baseStat == null ? 0 : baseStat.size());
      if (larger * DIFF_MEMORY_FACTOR > diffBudget) {
        tally.patchesSkipped++;
        LOG.info("patches: {} -> {} ({}) would hold about {} bytes, more than the budget of {}; skipped", b.getKey(), target,
            p.platform(), larger * DIFF_MEMORY_FACTOR, diffBudget);
        continue;
      }
      byte[] baseBytes = read(app.appId(), b.getKey(), settings.maxBundleBytes());
      if (baseBytes == null) {
        continue;
      }
      long t0 = System.nanoTime();
      byte[] patch = BundleDiff.diff(baseBytes, targetBytes);
      tally.diffNanos += System.nanoTime() - t0;
      if (patch.length * 2L > gzip) {
        tally.patchesDropped++;
        LOG.info("patches: {} -> {} ({}) is {} bytes, more than half the gzip size {}; dropped", b.getKey(), target, p.platform(), patch.length, gzip);
        continue;
      }
      if (!java.util.Arrays.equals(BundleDiff.apply(baseBytes, patch), targetBytes)) {
        throw new IOException("bsdiff made a patch " + b.getKey() + " -> " + target + " that does not rebuild the target");
      }
      out.add(store(app.appId(), p.platform(), target, b.getKey(), List.copyOf(b.getValue()), patch));
      tally.patchesKept++;
      tally.patchBytes += patch.length;
    }
    return out;
  }

  /**
   * What makes a recorded group's patches match the registered builds now: a patch from each build
   * (registered after the group's job) whose client applies embedded-bundle patches, and the recorded
   * patches re-recorded with the embedded update ids they must carry (a build re-registered on another
   * version or bundle). Empty when nothing changes. A base diffed once for the group (kept or dropped) is
   * not diffed again by this instance.
   */
  List<BundlePatch> reconcileBuilds(ControlState s, AppState app, GroupState g, Set<String> stopped, Tally tally) throws IOException {
    List<BundlePatch> out = new ArrayList<>();
    if (!settings.edges() || settings.bases() <= 0 || g.group().rollsBackToEmbedded()) {
      return out;
    }
    Deliveries d = s.deliveries(app.appId());
    String rv = g.group().runtimeVersion();
    for (PlatformUpdate p : g.group().platforms()) {
      String target = Bodies.launchSha(p.body());
      LaunchAssetStored stored = target == null ? null : d.launchAssets().get(target);
      if (stored == null) {
        continue;
      }
      Set<String> covered = new LinkedHashSet<>();
      for (BundlePatch old : d.patchesOf(g.groupId(), p.platform())) {
        covered.add(old.baseSha256());
        Set<String> ids = new LinkedHashSet<>();
        for (String id : old.baseUpdateIds()) {
          if (!d.builds().containsKey(id) && !stopped.contains(id)) {
            ids.add(id); // a published update's id
          }
        }
        ids.addAll(buildIds(d, p.platform(), rv, old.baseSha256()));
        ids.removeAll(stopped);
        if (!ids.equals(new LinkedHashSet<>(old.baseUpdateIds()))) {
          out.add(new BundlePatch(old.platform(), old.targetSha256(), old.baseSha256(), List.copyOf(ids), old.sha256(), old.size(), old.url()));
        }
      }
      Map<String, Set<String>> fresh = new LinkedHashMap<>();
      for (BuildRegistered b : d.builds().values()) {
        if (base(b, p.platform(), rv) && !b.bundleSha256().equals(target) && !covered.contains(b.bundleSha256())
            && !tried.contains(tryKey(g.groupId(), p.platform(), b.bundleSha256()))) {
          fresh.put(b.bundleSha256(), new LinkedHashSet<>());
        }
      }
      if (!fresh.isEmpty()) {
        addIds(app, d, p.platform(), rv, fresh, stopped);
        fresh.values().removeIf(Set::isEmpty);
        out.addAll(diffAll(app, g, p, target, stored, fresh, tally));
      }
    }
    return out;
  }

  /** Whether build {@code b}'s embedded bundle is a patch base for devices of {@code platform} and {@code runtimeVersion}. */
  static boolean base(BuildRegistered b, String platform, String runtimeVersion) {
    return b.platform().equals(platform) && b.runtimeVersion().equals(runtimeVersion)
        && ExpoUpdatesVersion.appliesEmbeddedPatches(b.expoUpdatesVersion());
  }

  private static Set<String> buildIds(Deliveries d, String platform, String runtimeVersion, String sha) {
    Set<String> out = new LinkedHashSet<>();
    for (BuildRegistered b : d.builds().values()) {
      if (base(b, platform, runtimeVersion) && b.bundleSha256().equals(sha)) {
        out.add(b.embeddedUpdateId());
      }
    }
    return out;
  }

  private static String tryKey(String groupId, String platform, String baseSha) {
    return groupId + '/' + platform + '/' + baseSha;
  }

  /** Base bundle → the update ids (published or embedded) whose launch asset it is. */
  private Map<String, Set<String>> bases(
      ControlState s, AppState app, GroupState g, String platform, String target, List<String> fleet, Set<String> stopped) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    int taken = 0;
    for (GroupState older : app.groupsNewestFirst(g.group().branch(), g.group().runtimeVersion())) {
      if (taken >= settings.bases()) {
        break;
      }
      if (older.sequence() >= g.sequence() || older.group().rollsBackToEmbedded()) {
        continue;
      }
      PlatformUpdate u = older.platform(platform);
      String sha = u == null ? null : Bodies.launchSha(u.body());
      if (sha != null && !sha.equals(target) && !out.containsKey(sha)) {
        out.put(sha, new LinkedHashSet<>());
        taken++;
      }
    }
    Deliveries d = s.deliveries(app.appId());
    for (String id : fleet) {
      String sha = launchShaOf(app, d, id, platform, g.group().runtimeVersion());
      if (sha != null && !sha.equals(target)) {
        out.computeIfAbsent(sha, k -> new LinkedHashSet<>());
      }
    }
    // a registered build whose client applies them: its embedded bundle is always a base
    for (BuildRegistered b : d.builds().values()) {
      if (base(b, platform, g.group().runtimeVersion()) && !b.bundleSha256().equals(target)) {
        out.computeIfAbsent(b.bundleSha256(), k -> new LinkedHashSet<>());
      }
    }
    addIds(app, d, platform, g.group().runtimeVersion(), out, stopped);
    out.values().removeIf(Set::isEmpty);
    return out;
  }

  /**
   * Fills each base's update ids: every update of the runtime and platform whose bundle it is, and every
   * registered build's embedded update whose client applies embedded-bundle patches (never an older
   * client's, even when its bundle is some update's too), but never a stopped one.
   */
  private static void addIds(
      AppState app, Deliveries d, String platform, String runtimeVersion, Map<String, Set<String>> out, Set<String> stopped) {
    for (GroupState any : app.groups()) {
      PlatformUpdate u = any.platform(platform);
      if (u == null || any.group().rollsBackToEmbedded() || !any.group().runtimeVersion().equals(runtimeVersion)) {
        continue;
      }
      Set<String> ids = out.get(Bodies.launchSha(u.body()));
      if (ids != null && !stopped.contains(u.updateId())) {
        ids.add(u.updateId());
      }
    }
    for (BuildRegistered b : d.builds().values()) {
      Set<String> ids = out.get(b.bundleSha256());
      if (ids != null && base(b, platform, runtimeVersion) && !stopped.contains(b.embeddedUpdateId())) {
        ids.add(b.embeddedUpdateId());
      }
    }
  }

  /** The launch asset of update (or registered embedded update) {@code id} for the runtime and platform, or null. */
  private static String launchShaOf(AppState app, Deliveries d, String id, String platform, String runtimeVersion) {
    BuildRegistered b = d.builds().get(id);
    if (b != null) {
      return b.platform().equals(platform) && b.runtimeVersion().equals(runtimeVersion) ? b.bundleSha256() : null;
    }
    for (GroupState g : app.groups()) {
      PlatformUpdate u = g.platform(platform);
      if (u != null && id.equals(u.updateId())) {
        return g.group().runtimeVersion().equals(runtimeVersion) ? Bodies.launchSha(u.body()) : null;
      }
    }
    return null;
  }

  private BundlePatch store(String appId, String platform, String target, String base, List<String> ids, byte[] patch) throws IOException {
    String sha = HexFormat.of().formatHex(Encodings.digest("SHA-256").digest(patch));
    String md5 = HexFormat.of().formatHex(Encodings.digest("MD5").digest(patch));
    Path f = Files.createTempFile(tmp, "patch-", ".part");
    try {
      Files.write(f, patch);
      storage.put(appId, sha, f, md5, patch.length, PATCH_TYPE);
    } finally {
      Files.deleteIfExists(f);
    }
    return new BundlePatch(platform, target, base, ids, sha, patch.length, patchUrl(storage, appId, sha));
  }

  /** The storage URL of a stored patch. */
  static String patchUrl(AssetStorage storage, String appId, String sha) {
    return storage.urls(appId).url(sha, ".bsdiff", PATCH_TYPE);
  }

  private long gzipSize(String appId, String sha, LaunchAssetStored stored) throws IOException {
    AssetVariant gz = stored.variant(AcceptEncoding.GZIP);
    if (gz != null) {
      return gz.size();
    }
    Path source = copy(appId, sha);
    try {
      Encodings.Encoded e = Encodings.encodeOne(source, AcceptEncoding.GZIP, tmp);
      Files.deleteIfExists(e.file());
      return e.size();
    } finally {
      Files.deleteIfExists(source);
    }
  }

  private Path copy(String appId, String sha) throws IOException {
    Path f = Files.createTempFile(tmp, "asset-", ".part");
    try (InputStream in = storage.open(appId, sha)) {
      Files.copy(in, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      Files.deleteIfExists(f);
      throw e;
    }
    return f;
  }

  /** The stored bytes, or null when they are not stored or larger than {@code max}. */
  private byte[] read(String appId, String sha, long max) throws IOException {
    try (InputStream in = storage.open(appId, sha)) {
      byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 16, max + 1));
      return b.length > max ? null : b;
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
  }
}
