package dev.updraft.edge.image;

import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One app's launch assets as an edge's asset route needs them, folded from {@code launch-asset.stored}
 * and {@code patches.computed}: where each launch asset's bytes live in each encoding, and the bundle
 * patches to it by the update id a device runs. Deleted groups take their patches with them, and the launch
 * assets no remaining group launches. Immutable and thread-safe; {@link Builder} folds events on the log
 * reader's thread.
 */
public final class LaunchAssets {

  /** No launch assets. */
  public static final LaunchAssets EMPTY = new LaunchAssets(Map.of(), Map.of(), Map.of());

  private final Map<String, LaunchAssetStored> bySha;
  /** target sha → base update id (lower case) → patch. */
  private final Map<String, Map<String, BundlePatch>> patches;
  /** group id → its patches. */
  private final Map<String, List<BundlePatch>> byGroup;

  private LaunchAssets(
      Map<String, LaunchAssetStored> bySha, Map<String, Map<String, BundlePatch>> patches, Map<String, List<BundlePatch>> byGroup) {
    this.bySha = bySha;
    this.patches = patches;
    this.byGroup = byGroup;
  }

  /** Where the launch asset {@code sha256} lives, or null when no event announced it. */
  public LaunchAssetStored asset(String sha256) {
    return bySha.get(sha256);
  }

  /** The patch to {@code targetSha256} from the bundle of update {@code baseUpdateId} (lower case), or null. */
  public BundlePatch patch(String targetSha256, String baseUpdateId) {
    Map<String, BundlePatch> m = patches.get(targetSha256);
    return m == null ? null : m.get(baseUpdateId);
  }

  /** The patches recorded for a group (empty when none). */
  public List<BundlePatch> patchesOf(String groupId) {
    List<BundlePatch> l = byGroup.get(groupId);
    return l == null ? List.of() : l;
  }

  /** Number of launch assets known. */
  public int size() {
    return bySha.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LaunchAssets && ((LaunchAssets) o).bySha.equals(bySha) && ((LaunchAssets) o).byGroup.equals(byGroup);
  }

  @Override
  public int hashCode() {
    return bySha.hashCode() * 31 + byGroup.hashCode();
  }

  /** A mutable copy of an app's launch assets that events are folded into. Confined to one thread. */
  public static final class Builder {
    private final LaunchAssets base;
    private HashMap<String, LaunchAssetStored> bySha;
    private HashMap<String, List<BundlePatch>> byGroup;

    /** @param base nullable: none yet */
    public Builder(LaunchAssets base) {
      this.base = base == null ? EMPTY : base;
    }

    /** A launch asset's encodings (replacing an earlier announcement of the same bytes). */
    public boolean stored(LaunchAssetStored l) {
      if (l.sha256() == null || l.variants().isEmpty()) {
        return false;
      }
      if (bySha == null) {
        bySha = new HashMap<>(base.bySha);
      }
      bySha.put(l.sha256(), l);
      return true;
    }

    /** A group's patches, each replacing the group's earlier patch of the same platform, target and base. */
    public boolean computed(PatchesComputed p) {
      if (p.groupId() == null) {
        return false;
      }
      if (byGroup == null) {
        byGroup = new HashMap<>(base.byGroup);
      }
      List<BundlePatch> merged = new ArrayList<>();
      for (BundlePatch old : byGroup.getOrDefault(p.groupId(), List.of())) {
        boolean replaced = false;
        for (BundlePatch n : p.patches()) {
          replaced |= n.platform().equals(old.platform()) && n.targetSha256().equals(old.targetSha256()) && n.baseSha256().equals(old.baseSha256());
        }
        if (!replaced) {
          merged.add(old);
        }
      }
      merged.addAll(p.patches());
      byGroup.put(p.groupId(), List.copyOf(merged));
      return true;
    }

    /**
     * Forgets a group's patches: the image no longer holds the group (the retention rule dropped it, or it
     * was deleted, alone or with its branch). Launch-asset records stay: the image keeps groups without
     * their bodies, so which bundle a remaining group (a republish) launches is not known here, and dropping
     * one it still launches would break its downloads; one small record per distinct bundle lingers until
     * the app is deleted.
     */
    public void dropGroup(String groupId) {
      if (byGroup == null) {
        if (!base.byGroup.containsKey(groupId)) {
          return;
        }
        byGroup = new HashMap<>(base.byGroup);
      }
      byGroup.remove(groupId);
    }

    /** The app's launch assets now. */
    public LaunchAssets build() {
      if (bySha == null && byGroup == null) {
        return base;
      }
      Map<String, List<BundlePatch>> groups = byGroup == null ? base.byGroup : Collections.unmodifiableMap(new HashMap<>(byGroup));
      HashMap<String, Map<String, BundlePatch>> index = new HashMap<>();
      for (List<BundlePatch> l : groups.values()) {
        for (BundlePatch b : l) {
          Map<String, BundlePatch> m = index.computeIfAbsent(b.targetSha256(), k -> new HashMap<>());
          for (String id : b.baseUpdateIds()) {
            m.put(id.toLowerCase(Locale.ROOT), b);
          }
        }
      }
      return new LaunchAssets(
          bySha == null ? base.bySha : Collections.unmodifiableMap(new HashMap<>(bySha)), Collections.unmodifiableMap(index), groups);
    }
  }
}
