package dev.updraft.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.updraft.events.RolloutEvents.Rollout;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Update groups: publishing, rolling back to embedded, renewing their bodies, pinning, deleting, and the
 * retention rule. The events {@link UpdatePublished}, {@link RolledBackToEmbedded}, {@link ManifestsRenewed},
 * {@link UpdatesDeleted}, {@link UpdatePinned}, {@link RetentionSet}, and the values they carry ({@link
 * UpdateGroup}, {@link PlatformUpdate}, {@link Renewal}).
 *
 * <p>A namespace of {@link EventPayload}, which extends it: each record is also named {@code EventPayload.<Name>}
 * (imports use this interface's name). Records immutable.
 */
public interface UpdateEvents {
  /** A new update group on a branch: one update per platform. */
  record UpdatePublished(UpdateGroup group) implements EventPayload {}

  /** A roll back to the embedded bundle on a branch: served as the {@code rollBackToEmbedded} directive. */
  record RolledBackToEmbedded(UpdateGroup group) implements EventPayload {}

  /**
   * An update group: what one publish (or republish, or roll back to embedded) put on a branch.
   *
   * @param kind {@link #KIND_UPDATE} or {@link #KIND_ROLLBACK_TO_EMBEDDED}
   * @param message nullable
   * @param gitCommitHash nullable
   * @param idempotencyKey nullable: a retried publish with the same key returns this group
   * @param republishedFrom nullable: the group this one republishes
   * @param rollout nullable: no per-update rollout
   */
  record UpdateGroup(
      String groupId,
      String kind,
      String branch,
      String runtimeVersion,
      String message,
      String gitCommitHash,
      String idempotencyKey,
      String republishedFrom,
      Rollout rollout,
      List<PlatformUpdate> platforms) {
    public static final String KIND_UPDATE = "update";
    public static final String KIND_ROLLBACK_TO_EMBEDDED = "rollBackToEmbedded";

    public UpdateGroup {
      Objects.requireNonNull(groupId, "groupId");
      Objects.requireNonNull(kind, "kind");
      platforms = platforms == null ? List.of() : List.copyOf(platforms);
    }

    public boolean rollsBackToEmbedded() {
      return KIND_ROLLBACK_TO_EMBEDDED.equals(kind);
    }

    /** The entry for {@code platform}, or null. */
    public PlatformUpdate platform(String platform) {
      for (PlatformUpdate p : platforms) {
        if (p.platform().equals(platform)) {
          return p;
        }
      }
      return null;
    }

    /**
     * The same group with the renewals whose {@code updateId} names one of its entries applied (new body
     * and signature; ids, {@code createdAt} and assets unchanged); {@code this} when none applies.
     */
    public UpdateGroup renewed(java.util.Map<String, Renewal> byUpdateId) {
      List<PlatformUpdate> ps = null;
      for (int i = 0; i < platforms.size(); i++) {
        PlatformUpdate p = platforms.get(i);
        Renewal r = p.updateId() == null ? null : byUpdateId.get(p.updateId());
        if (r == null) {
          continue;
        }
        if (ps == null) {
          ps = new java.util.ArrayList<>(platforms);
        }
        ps.set(i, p.withBody(r.body(), r.signature(), r.signatures()));
      }
      return ps == null ? this : withPlatforms(ps);
    }

    /** The same group with other platform entries. */
    public UpdateGroup withPlatforms(List<PlatformUpdate> newPlatforms) {
      return new UpdateGroup(groupId, kind, branch, runtimeVersion, message, gitCommitHash, idempotencyKey,
          republishedFrom, rollout, newPlatforms);
    }
  }

  /**
   * One platform's update of a group (or its {@code rollBackToEmbedded} directive).
   *
   * @param updateId the manifest {@code id} (for a directive entry: an id of its own, never sent)
   * @param createdAt exactly {@code yyyy-MM-ddTHH:mm:ss.SSSZ}: the manifest's {@code createdAt}, or the
   *     directive's {@code commitTime}
   * @param body the manifest or directive JSON exactly as signed and served
   * @param signature nullable: the {@code expo-signature} value ({@code sig="…", keyid="…", alg="…"});
   *     with a key ring, the signature of the ring's primary key (the oldest active one), so that a reader
   *     written before the ring keeps serving the key installed binaries embed
   * @param launchAssetKey nullable for directives: key of the launch asset (for insights and audits)
   * @param assetKeys keys of every asset the manifest names (launch asset included)
   * @param signatures per {@code keyid}, the {@code expo-signature} value of every key of the ring the
   *     body was signed with; empty in events written before the key ring (then {@code signature} is the
   *     only one, for the {@code keyid} it names)
   * @param sourceMap nullable (absent in events written before source maps, and when none was uploaded): the
   *     lower-case hex SHA-256 of the launch asset's source map, stored privately by the control plane (never
   *     named in the body, never served to devices); read to resolve the top frames of reported errors
   */
  record PlatformUpdate(
      String platform,
      String updateId,
      String createdAt,
      String body,
      String signature,
      String launchAssetKey,
      List<String> assetKeys,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> signatures,
      @JsonInclude(JsonInclude.Include.NON_NULL) String sourceMap) {
    public PlatformUpdate {
      assetKeys = assetKeys == null ? List.of() : List.copyOf(assetKeys);
      signatures = sortedCopy(signatures);
    }

    /** An update without a source map. */
    public PlatformUpdate(
        String platform,
        String updateId,
        String createdAt,
        String body,
        String signature,
        String launchAssetKey,
        List<String> assetKeys,
        Map<String, String> signatures) {
      this(platform, updateId, createdAt, body, signature, launchAssetKey, assetKeys, signatures, null);
    }

    /** An update signed with one key or none (as written before the key ring). */
    public PlatformUpdate(
        String platform,
        String updateId,
        String createdAt,
        String body,
        String signature,
        String launchAssetKey,
        List<String> assetKeys) {
      this(platform, updateId, createdAt, body, signature, launchAssetKey, assetKeys, null);
    }

    /** The same update with a new body and signature (a renewal or a re-signing); all else unchanged. */
    public PlatformUpdate withBody(String newBody, String newSignature) {
      return withBody(newBody, newSignature, null);
    }

    /** The same update with a new body, primary signature and per-key signatures; all else unchanged. */
    public PlatformUpdate withBody(String newBody, String newSignature, Map<String, String> newSignatures) {
      return new PlatformUpdate(platform, updateId, createdAt, newBody, newSignature, launchAssetKey, assetKeys,
          newSignatures, sourceMap);
    }

    /** The same update with this source map (the SHA-256 hex of the map, or null). */
    public PlatformUpdate withSourceMap(String mapSha256) {
      return new PlatformUpdate(platform, updateId, createdAt, body, signature, launchAssetKey, assetKeys, signatures,
          mapSha256);
    }
  }

  /** Fresh bodies and signatures for updates still servable (renewed pre-signed URLs, re-signing). */
  record ManifestsRenewed(String reason, List<Renewal> renewals) implements EventPayload {
    public ManifestsRenewed {
      renewals = renewals == null ? List.of() : List.copyOf(renewals);
    }
  }

  /**
   * A new body and signature for one platform update or directive entry.
   *
   * @param signature nullable: unsigned; the primary key's signature (see {@link PlatformUpdate})
   * @param signatures nullable (absent in events written before the key ring): per {@code keyid}, the
   *     signature with every key of the ring
   */
  record Renewal(String updateId, String body, String signature,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> signatures) {
    public Renewal {
      signatures = sortedCopy(signatures);
    }

    /** A renewal signed with one key or none (events written before the key ring). */
    public Renewal(String updateId, String body, String signature) {
      this(updateId, body, signature, null);
    }
  }

  /**
   * Update groups leave the app: they are no longer served or listed, and a device running one is offered
   * what its line serves without them. Their stored assets become garbage once no other group names them
   * (an asset prune deletes them). The events that published them stay in the log.
   *
   * @param groupIds the groups, each deleted once
   * @param reason nullable: free text for the audit log (a retention policy names itself; a forced delete
   *     says so)
   */
  record UpdatesDeleted(List<String> groupIds, String reason) implements EventPayload {
    public UpdatesDeleted {
      groupIds = groupIds == null ? List.of() : List.copyOf(groupIds);
    }
  }

  /** A group is pinned (a retention policy never deletes it) or unpinned. */
  record UpdatePinned(String groupId, boolean pinned) implements EventPayload {}

  /**
   * The retention policy of an app ({@code branch} null) or of one branch is set or removed. The control
   * plane applies it as {@link UpdatesDeleted} events: per branch and runtime version it keeps the newest
   * {@code keep} groups and deletes older ones (also those older than {@code maxAgeSeconds}), never the
   * newest group of a line, a group of an active rollout or its control, or a pinned group. A branch's own
   * policy replaces the app's for that branch.
   *
   * @param branch nullable: the app-wide policy
   * @param keep nullable with {@code maxAgeSeconds} null: the policy is removed; otherwise at least 1
   * @param maxAgeSeconds nullable: no age limit; groups older than this are deleted even within
   *     {@code keep}
   */
  record RetentionSet(String branch, Integer keep, Long maxAgeSeconds) implements EventPayload {
    /** Whether this removes the policy. */
    public boolean removes() {
      return keep == null && maxAgeSeconds == null;
    }
  }

  /** An unmodifiable copy sorted by key (so the encoded bytes do not depend on map order); empty for null. */
  private static Map<String, String> sortedCopy(Map<String, String> m) {
    if (m == null || m.isEmpty()) {
      return Map.of();
    }
    return Collections.unmodifiableMap(new TreeMap<>(m));
  }
}
