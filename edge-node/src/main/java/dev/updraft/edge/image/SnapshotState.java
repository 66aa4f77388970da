package dev.updraft.edge.image;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An app's edge state from a control-plane snapshot ({@link AppSnapshot}): what the edge folds from the
 * events the snapshot covers. The snapshot holds the control plane's window of groups per line
 * ({@code Retention.CONTROL_PLANE_WINDOW}); the delta prunes it to the edge's, which gives what a replay
 * from offset 0 gives because the rule is monotone in its window. Tokens, builds and the audit are not
 * the edge's business.
 */
final class SnapshotState {
  private SnapshotState() {}

  static AppDelta delta(AppSnapshot s) {
    AppDelta d = new AppDelta(s.appId(), null);
    d.lastSequence = s.lastSequence();
    List<SigningKey> keys = new ArrayList<>();
    for (AppSnapshot.Key k : s.keys()) {
      keys.add(new SigningKey(k.keyId(), k.certificateSha256(), k.noUpdateDirectiveBody(), k.noUpdateDirectiveSignature(),
          k.certificateChainPem()));
    }
    d.keys = List.copyOf(keys);
    d.defaultChannel = s.defaultChannel();
    for (ChannelMapped c : s.channels()) {
      d.channels.put(c.channel(), c);
    }
    Set<String> lines = new HashSet<>();
    for (AppSnapshot.Group g : s.groups()) {
      UpdateGroup group = g.group();
      GroupState state = state(g);
      d.groups.put(group.groupId(), state);
      for (var u : group.platforms()) {
        if (u.updateId() != null) {
          d.groupOfEntry.put(u.updateId(), group.groupId());
        }
      }
      d.lines.computeIfAbsent(group.branch(), b -> new java.util.HashMap<>()).computeIfAbsent(group.runtimeVersion(), r -> new ArrayList<>())
          .add(group.groupId());
      lines.add(group.branch() + "\n" + group.runtimeVersion());
    }
    for (String line : lines) {
      int at = line.indexOf('\n');
      d.retain(line.substring(0, at), line.substring(at + 1));
    }
    for (AppSnapshot.LaunchAsset l : s.launchAssets()) {
      LaunchAssetStored stored = l.stored();
      d.launchAssets.stored(stored);
    }
    for (AppSnapshot.GroupPatches p : s.patches()) {
      PatchesComputed computed = p.computed();
      if (d.groups.containsKey(computed.groupId())) {
        d.launchAssets.computed(computed);
      }
    }
    return d;
  }

  /** The edge's view of a group: its rollout's share and whether it runs, whether it was reverted. */
  private static GroupState state(AppSnapshot.Group g) {
    GroupState published = GroupState.published(g.group());
    AppSnapshot.RolloutStatus r = g.rollout();
    if (r == null || g.group().rollout() == null) {
      return g.revertedBy() == null ? published : published.revertedState();
    }
    int share = Math.max(0, Math.min(100, r.percentage()));
    switch (r.status()) {
      case AppSnapshot.RolloutStatus.FINISHED:
        return published.finished();
      case AppSnapshot.RolloutStatus.REVERTED:
        return published.revertedState();
      default:
        return published.withPercentage(share);
    }
  }
}
