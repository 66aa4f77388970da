package dev.updraft.events;

import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One app's folded state at a known position of {@code updraft.events}, as the control plane writes it
 * to {@code updraft.snapshots}: everything its commands and the edges need, and nothing that only history
 * needs (the audit log is in PostgreSQL). Times are ISO-8601 instants as strings (as in the envelope), so
 * the bytes do not depend on a date library. Rules: COMPATIBILITY.md, "Snapshots".
 *
 * @param v the format version ({@link #VERSION} for what this build writes)
 * @param partition the partition of {@code updraft.events} holding the app's events
 * @param offset the offset of the app's last event the snapshot covers (the one at {@code lastSequence});
 *     a reader applies only the app's events above it
 * @param lastSequence the app's sequence at that event
 * @param defaultChannel nullable
 * @param keys the key ring in ring order
 * @param channels sorted by channel
 * @param groups the groups the control plane holds ({@link Retention#CONTROL_PLANE_WINDOW}), in log order
 * @param idempotencyKeys the bounded window of idempotency keys, oldest first
 * @param launchAssets sorted by SHA-256
 * @param patches by group, sorted by group id (only held groups')
 * @param builds sorted by embedded update id
 * @param pinned since v2: the ids of the pinned groups, sorted (a pinned group is held past the window and
 *     protected from retention, so a reader needs them to hold what a replay holds)
 * @param retentionPolicies since v2: the app's retention policies, the app-wide one (branch null) first,
 *     then by branch
 */
public record AppSnapshot(
    int v,
    String appId,
    int partition,
    long offset,
    long lastSequence,
    String displayName,
    String createdAt,
    String createdBy,
    String defaultChannel,
    List<Token> tokens,
    List<Key> keys,
    List<ChannelMapped> channels,
    List<Group> groups,
    List<IdempotencyKey> idempotencyKeys,
    List<LaunchAsset> launchAssets,
    List<GroupPatches> patches,
    List<BuildRegistered> builds,
    List<String> pinned,
    List<RetentionPolicy> retentionPolicies) {
  /**
   * The format version this build writes; readers take 1..VERSION and fall back to a replay otherwise. v2
   * added {@link #pinned} and {@link #retentionPolicies}: a v1 snapshot lacks them, so a reader that needs
   * them (the control plane) replays an app whose snapshot is v1 ({@link SnapshotSet.Result#requiring}).
   */
  public static final int VERSION = 2;

  public AppSnapshot {
    Objects.requireNonNull(appId, "appId");
    tokens = list(tokens);
    keys = list(keys);
    channels = list(channels);
    groups = list(groups);
    idempotencyKeys = list(idempotencyKeys);
    launchAssets = list(launchAssets);
    patches = list(patches);
    builds = list(builds);
    pinned = list(pinned);
    retentionPolicies = list(retentionPolicies);
  }

  /** A snapshot of the v1 shape (no pins, no retention policies). */
  public AppSnapshot(
      int v, String appId, int partition, long offset, long lastSequence, String displayName, String createdAt, String createdBy,
      String defaultChannel, List<Token> tokens, List<Key> keys, List<ChannelMapped> channels, List<Group> groups,
      List<IdempotencyKey> idempotencyKeys, List<LaunchAsset> launchAssets, List<GroupPatches> patches, List<BuildRegistered> builds) {
    this(v, appId, partition, offset, lastSequence, displayName, createdAt, createdBy, defaultChannel, tokens, keys, channels, groups,
        idempotencyKeys, launchAssets, patches, builds, null, null);
  }

  private static <T> List<T> list(List<T> l) {
    return l == null ? List.of() : List.copyOf(l);
  }

  /** A token (only its secret's SHA-256). @param revokedAt nullable */
  public record Token(
      String tokenId, String role, String label, String secretSha256, String issuedAt, String issuedBy, String revokedAt,
      String expiresAt) {
    /** A token that never expires (every snapshot written before {@code expiresAt}). */
    public Token(String tokenId, String role, String label, String secretSha256, String issuedAt, String issuedBy, String revokedAt) {
      this(tokenId, role, label, secretSha256, issuedAt, issuedBy, revokedAt, null);
    }
  }

  /** One key of the ring. @param certificateChainPem nullable */
  public record Key(
      String keyId,
      String certificatePem,
      String certificateSha256,
      String noUpdateDirectiveBody,
      String noUpdateDirectiveSignature,
      String registeredAt,
      String certificateChainPem) {}

  /**
   * A group as it stands: its current bodies and signatures ({@code group}), when it was published, when
   * each entry's body was rendered, its rollout and whether it was reverted.
   *
   * @param sequence the app sequence of the event that added it
   * @param renderedAt per update id
   * @param rollout nullable: no per-update rollout
   * @param revertedBy nullable: not reverted
   */
  public record Group(
      UpdateGroup group,
      long sequence,
      String publishedAt,
      String actor,
      Map<String, String> renderedAt,
      RolloutStatus rollout,
      String revertedBy) {
    public Group {
      Objects.requireNonNull(group, "group");
      renderedAt = renderedAt == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(renderedAt));
    }
  }

  /**
   * A per-update rollout now.
   *
   * @param status {@code active}, {@code finished} or {@code reverted}
   * @param controlGroupId nullable
   * @param guard nullable
   */
  public record RolloutStatus(
      String rolloutId, int percentage, String controlGroupId, RolloutGuard guard, String status, String startedAt,
      String changedAt) {
    public static final String ACTIVE = "active";
    public static final String FINISHED = "finished";
    public static final String REVERTED = "reverted";
  }

  /** A publish's idempotency key and the group it made. */
  public record IdempotencyKey(String key, String groupId, long sequence, String publishedAt) {}

  /** A launch asset's latest announcement and when it was made. */
  public record LaunchAsset(LaunchAssetStored stored, String at) {}

  /** A group's patches and when they were last recorded. */
  public record GroupPatches(PatchesComputed computed, String at) {}

  /**
   * A retention policy (v2).
   *
   * @param branch nullable: the app-wide policy
   * @param keep nullable: every group is kept (only an age limit)
   * @param maxAgeSeconds nullable: no age limit
   */
  public record RetentionPolicy(String branch, Integer keep, Long maxAgeSeconds, String setAt, String setBy) {}
}
