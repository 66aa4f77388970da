package dev.updraft.controlplane.state;

import dev.updraft.events.EventPayload.ChannelMapped;
import dev.updraft.events.EventPayload.PlatformUpdate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One app as folded from its events. Immutable; collections are unmodifiable (sorted maps, lists in
 * log order). The query methods are what command validation and the read API need.
 *
 * @param signing nullable: the app serves unsigned answers
 * @param groups every update group in log order (which is {@code createdAt} order per branch and runtime)
 * @param idempotencyKeys idempotency key to group id
 */
public record AppState(
    String appId,
    String displayName,
    Instant createdAt,
    String createdBy,
    long lastSequence,
    Map<String, TokenState> tokens,
    SigningState signing,
    Map<String, ChannelMapped> channels,
    List<GroupState> groups,
    Map<String, String> idempotencyKeys,
    List<AuditEntry> audit) {

  public AppState {
    Objects.requireNonNull(appId, "appId");
    tokens = Collections.unmodifiableMap(new TreeMap<>(tokens));
    channels = Collections.unmodifiableMap(new TreeMap<>(channels));
    groups = List.copyOf(groups);
    idempotencyKeys = Collections.unmodifiableMap(new TreeMap<>(idempotencyKeys));
    audit = List.copyOf(audit);
  }

  /** The group with {@code groupId}, or null. */
  public GroupState group(String groupId) {
    for (int i = groups.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(i);
      if (g.groupId().equals(groupId)) {
        return g;
      }
    }
    return null;
  }

  /** The newest entry for a branch, runtime version and platform, or null. Reverted groups are skipped. */
  public GroupState latestWith(String branch, String runtimeVersion, String platform) {
    for (int i = groups.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(i);
      if (!g.reverted() && on(g, branch, runtimeVersion) && g.platform(platform) != null) {
        return g;
      }
    }
    return null;
  }

  /** The latest {@code createdAt} (or directive {@code commitTime}) on a branch and runtime version, or null. */
  public String latestCreatedAt(String branch, String runtimeVersion) {
    for (int i = groups.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(i);
      if (on(g, branch, runtimeVersion) && g.createdAt() != null) {
        return g.createdAt();
      }
    }
    return null;
  }

  /** The group under an active per-update rollout on a branch and runtime version, or null. */
  public GroupState activeRollout(String branch, String runtimeVersion) {
    for (int i = groups.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(i);
      if (on(g, branch, runtimeVersion) && g.rollout() != null && g.rollout().active()) {
        return g;
      }
    }
    return null;
  }

  /** Platforms that have entries on a branch and runtime version (sorted). */
  public List<String> platformsOn(String branch, String runtimeVersion) {
    TreeMap<String, Boolean> out = new TreeMap<>();
    for (GroupState g : groups) {
      if (on(g, branch, runtimeVersion)) {
        for (PlatformUpdate p : g.group().platforms()) {
          out.put(p.platform(), Boolean.TRUE);
        }
      }
    }
    return List.copyOf(out.keySet());
  }

  /**
   * Entries a device can still be served, as (group id, platform) pairs: per branch, runtime version
   * and platform the newest entry, and the control group's entry while the newest is under an active
   * rollout. These are the bodies renewals and key registrations must refresh.
   */
  public List<Servable> servable() {
    Map<String, GroupState> newest = new LinkedHashMap<>();
    for (GroupState g : groups) {
      if (g.reverted()) {
        continue;
      }
      for (PlatformUpdate p : g.group().platforms()) {
        newest.put(g.group().branch() + "\u0000" + g.group().runtimeVersion() + "\u0000" + p.platform(), g);
      }
    }
    Map<String, Servable> out = new LinkedHashMap<>();
    for (Map.Entry<String, GroupState> e : newest.entrySet()) {
      String platform = e.getKey().substring(e.getKey().lastIndexOf('\u0000') + 1);
      GroupState g = e.getValue();
      out.putIfAbsent(g.groupId() + "/" + platform, new Servable(g.groupId(), platform));
      if (g.rollout() != null && g.rollout().active() && g.rollout().controlGroupId() != null) {
        GroupState control = group(g.rollout().controlGroupId());
        if (control != null && control.platform(platform) != null) {
          out.putIfAbsent(control.groupId() + "/" + platform, new Servable(control.groupId(), platform));
        }
      }
    }
    return List.copyOf(out.values());
  }

  /** Branch names with their runtime versions, from groups and channel mappings (sorted). */
  public Map<String, List<String>> branches() {
    Map<String, TreeMap<String, Boolean>> acc = new TreeMap<>();
    for (GroupState g : groups) {
      acc.computeIfAbsent(g.group().branch(), k -> new TreeMap<>()).put(g.group().runtimeVersion(), Boolean.TRUE);
    }
    for (ChannelMapped c : channels.values()) {
      acc.computeIfAbsent(c.branch(), k -> new TreeMap<>());
      if (c.rollout() != null) {
        acc.computeIfAbsent(c.rollout().branch(), k -> new TreeMap<>());
      }
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<String, TreeMap<String, Boolean>> e : acc.entrySet()) {
      out.put(e.getKey(), List.copyOf(e.getValue().keySet()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** Active (not revoked) tokens by id. */
  public Map<String, TokenState> activeTokens() {
    Map<String, TokenState> out = new HashMap<>();
    for (TokenState t : tokens.values()) {
      if (!t.revoked()) {
        out.put(t.tokenId(), t);
      }
    }
    return out;
  }

  /** Groups on a branch and runtime version (either may be null = any), newest first. */
  public List<GroupState> groupsNewestFirst(String branch, String runtimeVersion) {
    List<GroupState> out = new ArrayList<>();
    for (int i = groups.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(i);
      if ((branch == null || branch.equals(g.group().branch()))
          && (runtimeVersion == null || runtimeVersion.equals(g.group().runtimeVersion()))) {
        out.add(g);
      }
    }
    return out;
  }

  private static boolean on(GroupState g, String branch, String runtimeVersion) {
    return g.group().branch().equals(branch) && g.group().runtimeVersion().equals(runtimeVersion);
  }

  /** A servable entry: one platform of one group. */
  public record Servable(String groupId, String platform) {}
}
