package dev.updraft.controlplane.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.Deliveries;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.ListedAsset;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Asset garbage collection on any {@link AssetStorage}: deletes the stored objects of an app that no
 * remaining group references (its manifests' assets, their stored encodings, its bundle patches, the
 * registered builds' bundles) and that were stored longer than the grace period ago.
 *
 * <p>A publish racing a prune never loses an asset: a publish {@link #hold}s the objects it names before it
 * checks that they are stored, and releases them once its group is folded (or refused); the prune deletes an
 * object only inside {@link ConcurrentHashMap#compute} on its address, after checking there that no publish
 * holds it and that the current state still references nothing at that address. So either the publish's
 * check sees the object gone (and asks for the upload again) or the prune sees it held or referenced. The
 * grace period covers uploads whose publish has not started yet. One control plane writes at a time, and
 * pruning runs on it. Blocking; thread-safe.
 */
public final class AssetPrune {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How many deletions share one look at the current state's references. */
  private static final int RECHECK_EVERY = 200;

  private final AssetStorage storage;
  private final Supplier<ControlState> state;
  private final Clock clock;
  private final ConcurrentHashMap<String, Integer> held = new ConcurrentHashMap<>();
  /** The references last computed, for the state they were computed from (states are immutable: same object, same answer). */
  private volatile Refs lastRefs;

  private record Refs(ControlState state, String appId, Set<String> shas) {}

  AssetPrune(AssetStorage storage, Supplier<ControlState> state, Clock clock) {
    this.storage = storage;
    this.state = state;
    this.clock = clock;
  }

  /**
   * The worker pool prunes run on (one thread, shared by name across the process): a prune of many objects
   * takes minutes, and on the callers' own worker queue it would hold up their other blocking work (a
   * publish's storage checks run ordered on the same context) and trip Vert.x's blocked-thread warning.
   */
  public static WorkerExecutor executor(Vertx vertx) {
    return vertx.createSharedWorkerExecutor("updraft-asset-prune", 1, 1, TimeUnit.HOURS);
  }

  /** What a prune found, deleted (or, in a dry run, would delete). */
  public record Result(String appId, boolean dryRun, Duration grace, int scanned, int referenced, int young,
      List<ListedAsset> deleted, long bytes) {}

  /** Marks objects of an app as used by a publish in progress (call {@link #release} with the same list). */
  public void hold(String appId, Collection<String> sha256s) {
    for (String sha : sha256s) {
      held.merge(appId + "/" + sha, 1, Integer::sum);
    }
  }

  public void release(String appId, Collection<String> sha256s) {
    for (String sha : sha256s) {
      held.computeIfPresent(appId + "/" + sha, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  /**
   * Prunes {@code appId}'s objects stored before now minus {@code grace} that nothing references (every
   * object of an app that no longer exists, such as a deleted one).
   */
  public Result prune(String appId, boolean dryRun, Duration grace) throws IOException {
    Instant cutoff = clock.instant().minus(grace);
    List<ListedAsset> listed = storage.list(appId);
    Set<String> refs = referencesNow(appId);
    int referenced = 0;
    int young = 0;
    List<ListedAsset> candidates = new ArrayList<>();
    for (ListedAsset a : listed) {
      if (refs.contains(a.sha256Hex())) {
        referenced++;
      } else if (!a.storedAt().isBefore(cutoff)) {
        young++;
      } else {
        candidates.add(a);
      }
    }
    List<ListedAsset> deleted = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < candidates.size(); i++) {
      if (i % RECHECK_EVERY == 0) {
        refs = referencesNow(appId);
      }
      ListedAsset a = candidates.get(i);
      if (dryRun ? !refs.contains(a.sha256Hex()) : deleteIfUnused(appId, a.sha256Hex())) {
        deleted.add(a);
        bytes += a.size();
      } else {
        referenced++;
      }
    }
    return new Result(appId, dryRun, grace, listed.size(), referenced, young, List.copyOf(deleted), bytes);
  }

  /** Deletes the object unless a publish holds it or the current state references it. */
  private boolean deleteIfUnused(String appId, String sha256) throws IOException {
    boolean[] done = {false};
    IOException[] failed = {null};
    held.compute(appId + "/" + sha256, (k, n) -> {
      if (n != null || referencesNow(appId).contains(sha256)) {
        return n;
      }
      try {
        storage.delete(appId, sha256);
        done[0] = true;
      } catch (IOException e) {
        failed[0] = e;
      }
      return null;
    });
    if (failed[0] != null) {
      throw failed[0];
    }
    return done[0];
  }

  /**
   * {@link #references} of the current state, computed again only when the state changed since the last
   * call: a prune re-checks before every deletion, and walking every held manifest each time made a prune
   * of 100,000 objects quadratic.
   */
  private Set<String> referencesNow(String appId) {
    ControlState s = state.get();
    Refs r = lastRefs;
    if (r != null && r.state() == s && r.appId().equals(appId)) {
      return r.shas();
    }
    Set<String> shas = references(s, appId);
    lastRefs = new Refs(s, appId, shas);
    return shas;
  }

  /** Every stored address the app's remaining groups and builds need (empty for an app that does not exist). */
  static Set<String> references(ControlState s, String appId) {
    Set<String> out = new HashSet<>();
    AppState app = s.app(appId);
    if (app == null) {
      return out;
    }
    Deliveries d = s.deliveries(appId);
    for (GroupState g : app.groups()) {
      for (PlatformUpdate p : g.group().platforms()) {
        manifestAssets(p.body(), out);
      }
      PatchesComputed patches = d.patches().get(g.groupId());
      if (patches != null) {
        for (BundlePatch b : patches.patches()) {
          out.add(b.sha256());
        }
      }
    }
    for (String sha : List.copyOf(out)) {
      LaunchAssetStored l = d.launchAssets().get(sha);
      if (l != null) {
        for (AssetVariant v : l.variants()) {
          out.add(v.sha256());
        }
      }
    }
    for (BuildRegistered b : d.builds().values()) {
      out.add(b.bundleSha256());
    }
    return out;
  }

  /** The hex SHA-256 of every stored object the manifests of {@code g} name (a republish of it needs them). */
  public static Set<String> addresses(UpdateGroup g) {
    Set<String> out = new HashSet<>();
    for (PlatformUpdate p : g.platforms()) {
      manifestAssets(p.body(), out);
    }
    return out;
  }

  /** Adds the hex SHA-256 of the launch asset and every asset a manifest body names (none for a directive). */
  private static void manifestAssets(String body, Set<String> out) {
    if (body == null) {
      return;
    }
    JsonNode m;
    try {
      m = JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalStateException("a stored manifest body is not JSON: " + e.getMessage(), e);
    }
    addHash(m.path("launchAsset").path("hash"), out);
    for (JsonNode a : m.path("assets")) {
      addHash(a.path("hash"), out);
    }
  }

  private static void addHash(JsonNode hash, Set<String> out) {
    if (hash.isTextual()) {
      out.add(HexFormat.of().formatHex(Base64.getUrlDecoder().decode(hash.asText())));
    }
  }
}
