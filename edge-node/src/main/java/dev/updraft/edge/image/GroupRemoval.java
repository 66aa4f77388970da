package dev.updraft.edge.image;

import dev.updraft.events.UpdateEvents.PlatformUpdate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes deleted groups out of an {@link AppDelta}'s maps: the groups, their entries, their lines, and their
 * launch assets and patches ({@link LaunchAssets.Builder#dropGroup}).
 */
final class GroupRemoval {
  private GroupRemoval() {}

  /** Removes each group; returns the ids the app did not have. */
  static List<String> remove(
      Map<String, GroupState> groups, Map<String, String> groupOfEntry, Map<String, HashMap<String, ArrayList<String>>> lines,
      LaunchAssets.Builder assets, List<String> groupIds) {
    List<String> unknown = new ArrayList<>();
    for (String id : groupIds) {
      if (!removeOne(groups, groupOfEntry, lines, assets, id)) {
        unknown.add(id);
      }
    }
    return unknown;
  }

  /** Removes every group of {@code branch} (reverted ones too) and its lines. */
  static boolean branch(
      Map<String, GroupState> groups, Map<String, String> groupOfEntry, Map<String, HashMap<String, ArrayList<String>>> lines,
      LaunchAssets.Builder assets, String branch) {
    List<String> ids = new ArrayList<>();
    for (GroupState g : groups.values()) {
      if (branch.equals(g.group().branch())) {
        ids.add(g.group().groupId());
      }
    }
    remove(groups, groupOfEntry, lines, assets, ids);
    lines.remove(branch);
    return true;
  }

  private static boolean removeOne(
      Map<String, GroupState> groups, Map<String, String> groupOfEntry, Map<String, HashMap<String, ArrayList<String>>> lines,
      LaunchAssets.Builder assets, String groupId) {
    GroupState g = groups.remove(groupId);
    if (g == null) {
      return false;
    }
    assets.dropGroup(g.group().groupId());
    for (PlatformUpdate u : g.group().platforms()) {
      if (u.updateId() != null && groupId.equals(groupOfEntry.get(u.updateId()))) {
        groupOfEntry.remove(u.updateId());
      }
    }
    HashMap<String, ArrayList<String>> byRuntime = lines.get(g.group().branch());
    ArrayList<String> line = byRuntime == null ? null : byRuntime.get(g.group().runtimeVersion());
    if (line != null) {
      line.remove(groupId);
      if (line.isEmpty()) {
        byRuntime.remove(g.group().runtimeVersion());
      }
      if (byRuntime.isEmpty()) {
        lines.remove(g.group().branch());
      }
    }
    return true;
  }

}
