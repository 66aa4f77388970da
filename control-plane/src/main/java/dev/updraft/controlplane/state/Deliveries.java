package dev.updraft.controlplane.state;

import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * How one app's launch assets reach devices, as folded from {@code launch-asset.stored},
 * {@code patches.computed} and {@code build.registered}: the stored encodings of each launch asset (with
 * the URLs edges fetch them from), the bundle patches computed per group, and the registered builds'
 * embedded bundles. Immutable and persistent.
 *
 * @param launchAssets by hex SHA-256 of the bundle: the latest announcement
 * @param launchAt when each announcement was made (its URLs rendered)
 * @param patches by group id: the group's patches, a later event replacing the patch of the same
 *     platform, target and base
 * @param patchesAt by group id: when its patches were last recorded (their URLs rendered)
 * @param builds by embedded update id
 */
public record Deliveries(
    PSortedMap<String, LaunchAssetStored> launchAssets,
    PSortedMap<String, Instant> launchAt,
    PSortedMap<String, PatchesComputed> patches,
    PSortedMap<String, Instant> patchesAt,
    PSortedMap<String, BuildRegistered> builds) {
  public static final Deliveries EMPTY =
      new Deliveries(TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty());

  public Deliveries {
    Objects.requireNonNull(launchAssets, "launchAssets");
    Objects.requireNonNull(launchAt, "launchAt");
    Objects.requireNonNull(patches, "patches");
    Objects.requireNonNull(patchesAt, "patchesAt");
    Objects.requireNonNull(builds, "builds");
  }

  Deliveries stored(LaunchAssetStored l, Instant at) {
    return new Deliveries(launchAssets.plus(l.sha256(), l), launchAt.plus(l.sha256(), at), patches, patchesAt, builds);
  }

  Deliveries computed(PatchesComputed p, Instant at) {
    PatchesComputed before = patches.get(p.groupId());
    List<BundlePatch> merged = new ArrayList<>();
    if (before != null) {
      for (BundlePatch old : before.patches()) {
        if (!replaced(old, p.patches())) {
          merged.add(old);
        }
      }
    }
    merged.addAll(p.patches());
    return new Deliveries(
        launchAssets, launchAt, patches.plus(p.groupId(), new PatchesComputed(p.groupId(), merged)), patchesAt.plus(p.groupId(), at), builds);
  }

  Deliveries registered(BuildRegistered b) {
    return new Deliveries(launchAssets, launchAt, patches, patchesAt, builds.plus(b.embeddedUpdateId(), b));
  }

  /** These deliveries without the patches of groups {@code held} does not accept; {@code this} when none goes. */
  Deliveries retainingPatchesOf(java.util.function.Predicate<String> held) {
    PSortedMap<String, PatchesComputed> p = patches;
    PSortedMap<String, Instant> at = patchesAt;
    for (String groupId : patches.keySet()) {
      if (!held.test(groupId)) {
        p = p.minus(groupId);
        at = at.minus(groupId);
      }
    }
    return p == patches ? this : new Deliveries(launchAssets, launchAt, p, at, builds);
  }

  private static boolean replaced(BundlePatch old, List<BundlePatch> fresh) {
    for (BundlePatch n : fresh) {
      if (n.platform().equals(old.platform()) && n.targetSha256().equals(old.targetSha256()) && n.baseSha256().equals(old.baseSha256())) {
        return true;
      }
    }
    return false;
  }

  /** The group's patches for {@code platform} (empty when none, or not computed yet). */
  public List<BundlePatch> patchesOf(String groupId, String platform) {
    PatchesComputed p = patches.get(groupId);
    List<BundlePatch> out = new ArrayList<>();
    if (p != null) {
      for (BundlePatch b : p.patches()) {
        if (b.platform().equals(platform)) {
          out.add(b);
        }
      }
    }
    return out;
  }

  /** Whether patches were computed (possibly none kept) for the group. */
  public boolean patchesComputed(String groupId) {
    return patches.containsKey(groupId);
  }
}
