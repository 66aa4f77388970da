package dev.updraft.controlplane.state;

import dev.updraft.events.ChannelEvents.ChannelMapped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * One app as folded from its events. Immutable and persistent: maps are sorted persistent maps, lists
 * persistent vectors in log order, so the state after an event shares all it did not touch with the state
 * before (see {@link GroupHistory}). The query methods are what command validation and the read API need;
 * those about one branch and runtime version read that line's index, not the whole history.
 *
 * @param keys the key ring in ring order (its first key is the primary one); empty: the app serves unsigned
 *     answers
 * @param defaultChannel nullable: none; the channel requests without {@code expo-channel-name} are answered for
 * @param history the update groups the retention rule holds ({@link dev.updraft.events.Retention#CONTROL_PLANE_WINDOW}
 *     per line), in log order, indexed
 * @param idempotencyKeys the bounded window of idempotency keys ({@link IdempotencyWindow})
 *     (the audit log is history: the ingester projects it into PostgreSQL, where the audit API reads it)
 */
public record AppState(
    String appId,
    String displayName,
    Instant createdAt,
    String createdBy,
    long lastSequence,
    PSortedMap<String, TokenState> tokens,
    List<SigningState> keys,
    String defaultChannel,
    PSortedMap<String, ChannelMapped> channels,
    GroupHistory history,
    IdempotencyWindow idempotencyKeys) {

  public AppState {
    Objects.requireNonNull(appId, "appId");
    Objects.requireNonNull(tokens, "tokens");
    keys = keys == null ? List.of() : List.copyOf(keys);
    Objects.requireNonNull(channels, "channels");
    Objects.requireNonNull(history, "history");
    Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
  }

  /** An app from plain collections (a snapshot, a test) with at most one key; the indexes are built here. */
  public AppState(
      String appId,
      String displayName,
      Instant createdAt,
      String createdBy,
      long lastSequence,
      Map<String, TokenState> tokens,
      SigningState signing,
      Map<String, ChannelMapped> channels,
      List<GroupState> groups,
      List<IdempotencyWindow.Entry> idempotencyKeys) {
    this(
        appId, displayName, createdAt, createdBy, lastSequence, TreePMap.from(tokens), signing == null ? List.of() : List.of(signing),
        null, TreePMap.from(channels), GroupHistory.of(groups), IdempotencyWindow.of(idempotencyKeys));
  }

  /** A new app: nothing but its creation. */
  static AppState created(String appId, String displayName, Instant createdAt, String createdBy) {
    return new AppState(
        appId, displayName, createdAt, createdBy, 0, TreePMap.empty(), List.of(), null, TreePMap.empty(), GroupHistory.EMPTY,
        IdempotencyWindow.EMPTY);
  }

  AppState withTokens(PSortedMap<String, TokenState> t) {
    return new AppState(
        appId, displayName, createdAt, createdBy, lastSequence, t, keys, defaultChannel, channels, history, idempotencyKeys);
  }

  AppState withKeys(List<SigningState> ring) {
    return new AppState(
        appId, displayName, createdAt, createdBy, lastSequence, tokens, ring, defaultChannel, channels, history, idempotencyKeys);
  }

  AppState withDefaultChannel(String channel) {
    return new AppState(
        appId, displayName, createdAt, createdBy, lastSequence, tokens, keys, channel, channels, history, idempotencyKeys);
  }

  AppState withChannels(PSortedMap<String, ChannelMapped> c) {
    return new AppState(
        appId, displayName, createdAt, createdBy, lastSequence, tokens, keys, defaultChannel, c, history, idempotencyKeys);
  }

  AppState withHistory(GroupHistory h, IdempotencyWindow idempotency) {
    return new AppState(
        appId, displayName, createdAt, createdBy, lastSequence, tokens, keys, defaultChannel, channels, h, idempotency);
  }

  /**
   * This app after the event at {@code sequence} that happened at {@code occurredAt}; the idempotency window
   * moves to the event's time (none, null, for an event this build cannot read).
   */
  AppState advanced(long sequence, Instant occurredAt) {
    IdempotencyWindow idem = occurredAt == null ? idempotencyKeys : idempotencyKeys.trimmed(occurredAt);
    return new AppState(
        appId, displayName, createdAt, createdBy, sequence, tokens, keys, defaultChannel, channels, history, idem);
  }

  /** Whether the app signs its answers (its key ring is not empty). */
  public boolean signs() {
    return !keys.isEmpty();
  }

  /** The key with {@code keyId}, or null. */
  public SigningState key(String keyId) {
    for (SigningState k : keys) {
      if (k.keyId().equals(keyId)) {
        return k;
      }
    }
    return null;
  }

  /**
   * The key registered last (the certificate new builds should embed), or null: the latest
   * {@code registeredAt}, the later in ring order on a tie.
   */
  public SigningState newestKey() {
    SigningState newest = null;
    for (SigningState k : keys) {
      if (newest == null || !k.registeredAt().isBefore(newest.registeredAt())) {
        newest = k;
      }
    }
    return newest;
  }

  /** Every update group in log order (which is {@code createdAt} order per branch and runtime version). */
  public List<GroupState> groups() {
    return history.inLogOrder();
  }

  /** The group with {@code groupId}, or null. */
  public GroupState group(String groupId) {
    return history.group(groupId);
  }

  /** The newest entry for a branch, runtime version and platform, or null. Reverted groups are skipped. */
  public GroupState latestWith(String branch, String runtimeVersion, String platform) {
    return history.latestWith(branch, runtimeVersion, platform);
  }

  /** The latest {@code createdAt} (or directive {@code commitTime}) on a branch and runtime version, or null. */
  public String latestCreatedAt(String branch, String runtimeVersion) {
    return history.latestCreatedAt(branch, runtimeVersion);
  }

  /** The group under an active per-update rollout on a branch and runtime version, or null. */
  public GroupState activeRollout(String branch, String runtimeVersion) {
    return history.activeRollout(branch, runtimeVersion);
  }

  /** Every group under an active per-update rollout, in log order. */
  public List<GroupState> activeRollouts() {
    return history.activeRollouts();
  }

  /** Platforms that have entries on a branch and runtime version (sorted). */
  public List<String> platformsOn(String branch, String runtimeVersion) {
    return history.platformsOn(branch, runtimeVersion);
  }

  /**
   * Entries a device can still be served, as (group id, platform) pairs: per branch, runtime version
   * and platform the newest entry, and the control group's entry while the newest is under an active
   * rollout. These are the bodies renewals and key registrations must refresh.
   */
  public List<Servable> servable() {
    Map<String, Servable> out = new LinkedHashMap<>();
    for (GroupHistory.PlatformHead head : history.heads()) {
      GroupState g = head.newest();
      String platform = head.platform();
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

  /**
   * {@link #servable()} and what a device that reported newer entries failed can be served: per line and
   * platform the newest {@code depth} entries not reverted, and as many from a running rollout's control
   * down. These are the bodies key registrations re-sign and renewals refresh.
   */
  public List<Servable> servable(int depth) {
    Map<String, Servable> out = new LinkedHashMap<>();
    for (GroupHistory.PlatformHead head : history.heads()) {
      GroupState g = head.newest();
      String platform = head.platform();
      for (GroupState x : history.newestWith(g.group().branch(), g.group().runtimeVersion(), platform, null, depth)) {
        out.putIfAbsent(x.groupId() + "/" + platform, new Servable(x.groupId(), platform));
      }
      if (g.rollout() != null && g.rollout().active() && g.rollout().controlGroupId() != null) {
        for (GroupState x : history.newestWith(g.group().branch(), g.group().runtimeVersion(), platform,
            g.rollout().controlGroupId(), depth)) {
          out.putIfAbsent(x.groupId() + "/" + platform, new Servable(x.groupId(), platform));
        }
      }
    }
    return List.copyOf(out.values());
  }

  /** Branch names with their runtime versions, from groups and channel mappings (sorted). */
  public Map<String, List<String>> branches() {
    Map<String, TreeSet<String>> acc = new TreeMap<>();
    for (GroupHistory.LineKey k : history.lineKeys()) {
      acc.computeIfAbsent(k.branch(), b -> new TreeSet<>()).add(k.runtimeVersion());
    }
    for (ChannelMapped c : channels.values()) {
      acc.computeIfAbsent(c.branch(), b -> new TreeSet<>());
      if (c.rollout() != null) {
        acc.computeIfAbsent(c.rollout().branch(), b -> new TreeSet<>());
      }
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<String, TreeSet<String>> e : acc.entrySet()) {
      out.put(e.getKey(), List.copyOf(e.getValue()));
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

  /**
   * Groups on a branch and runtime version (either may be null = any), newest first; unmodifiable. With
   * both given this is a view of the line's index.
   */
  public List<GroupState> groupsNewestFirst(String branch, String runtimeVersion) {
    if (branch != null && runtimeVersion != null) {
      return history.newestFirst(branch, runtimeVersion);
    }
    List<GroupState> all = groups();
    List<GroupState> out = new ArrayList<>();
    for (int i = all.size() - 1; i >= 0; i--) {
      GroupState g = all.get(i);
      if ((branch == null || branch.equals(g.group().branch()))
          && (runtimeVersion == null || runtimeVersion.equals(g.group().runtimeVersion()))) {
        out.add(g);
      }
    }
    return Collections.unmodifiableList(out);
  }

  /** A servable entry: one platform of one group. */
  public record Servable(String groupId, String platform) {}
}
