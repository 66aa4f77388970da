package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.RetentionState;
import dev.updraft.controlplane.state.RetentionState.Policy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which groups an app's retention policies delete now. Per branch and runtime version, under the policy
 * that applies to the branch (its own, else the app's): the groups past the newest {@code keep}, and those
 * published longer than {@code maxAge} ago. Never deleted: the newest group of the line (and of each of its
 * platforms), a group under an active rollout or the control of one, a pinned group. Pure.
 */
final class RetentionPlan {
  private RetentionPlan() {}

  /** The groups to delete, by the reason the audit log shows (in the order of the app's lines); empty: none. */
  static Map<String, List<String>> victims(AppState app, RetentionState retention, Instant now) {
    Set<String> protectedIds = protectedGroups(app, retention);
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> b : app.branches().entrySet()) {
      Policy p = retention.policyFor(b.getKey());
      if (p == null) {
        continue;
      }
      Instant oldest = p.maxAge() == null ? null : now.minus(p.maxAge());
      String reason =
          "retention: " + (p.branch() == null ? "app policy" : "policy of branch " + p.branch()) + ", keep " + p.keep()
              + (p.maxAge() == null ? "" : ", max age " + p.maxAge().toDays() + "d");
      for (String rt : b.getValue()) {
        List<GroupState> line = app.groupsNewestFirst(b.getKey(), rt);
        for (int i = 0; i < line.size(); i++) {
          GroupState g = line.get(i);
          boolean expired = i >= p.keep() || oldest != null && g.publishedAt().isBefore(oldest);
          if (i > 0 && expired && !protectedIds.contains(g.groupId())) {
            out.computeIfAbsent(reason, r -> new ArrayList<>()).add(g.groupId());
          }
        }
      }
    }
    return out;
  }

  /** Pinned groups, the newest group of each line and platform, and active rollouts with their controls. */
  private static Set<String> protectedGroups(AppState app, RetentionState retention) {
    Set<String> out = new HashSet<>(retention.pinned());
    for (Map.Entry<String, List<String>> b : app.branches().entrySet()) {
      for (String rt : b.getValue()) {
        for (String platform : app.platformsOn(b.getKey(), rt)) {
          GroupState head = app.latestWith(b.getKey(), rt, platform);
          if (head != null) {
            out.add(head.groupId());
          }
        }
      }
    }
    for (GroupState r : app.activeRollouts()) {
      out.add(r.groupId());
      if (r.rollout().controlGroupId() != null) {
        out.add(r.rollout().controlGroupId());
      }
    }
    return out;
  }
}
