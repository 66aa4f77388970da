package dev.updraft.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The payload of an event. One immutable record per {@link EventType}; fields marked nullable may be
 * absent on the wire. Collections are never null (absent means empty).
 *
 * <p>Manifest and directive bodies travel as the exact UTF-8 text that was signed ({@code body}), with
 * the complete {@code expo-signature} structured-header value beside it ({@code signature}, null when the
 * app had no signing key). Edges serve these bytes as they are and never re-serialize them.
 */
public sealed interface EventPayload {

  /** The type of this payload. */
  default EventType type() {
    return EventType.of(getClass());
  }

  /** A new app. The app id is the envelope's {@code appId}. */
  record AppCreated(String displayName) implements EventPayload {}

  /**
   * A per-app token. Only the SHA-256 hex of the secret is recorded; the secret itself is shown once to whoever created it.
   *
   * @param role {@code publish}, {@code read} or {@code admin}
   * @param expiresAt nullable, absent meaning never (every token issued before the field): the ISO-8601 instant from which it is refused
   */
  record TokenIssued(String tokenId, String role, String secretSha256, String label, String expiresAt) implements EventPayload {}

  record TokenRevoked(String tokenId) implements EventPayload {}

  /**
   * An app's code-signing certificate (never its private key). Carries the {@code noUpdateAvailable}
   * directive signed once with the new key, and fresh signatures for every body still servable.
   *
   * <p>With {@code ring} true (every registration this build writes) the key joins the app's key ring:
   * it replaces a key of the same {@code keyId} in place, or is added after the others; the other keys
   * stay active, and {@code resigned} carries every servable body signed with every key of the ring
   * after the change. Without it (events written before the key ring) the key replaces the whole ring:
   * after the event every answer of the app is signed with this key only.
   *
   * @param keyId the {@code keyid} devices are configured with (Expo's default is {@code main} in
   *     generated configs, {@code root} when absent)
   * @param certificatePem the code-signing certificate (for a chain: its leaf)
   * @param certificateChainPem nullable: chain mode, the PEM certificates served in the
   *     {@code certificate_chain} part, leaf first, then the intermediates (the root is embedded in the
   *     binary, never served); null for a self-signed certificate embedded in the binary
   * @param ring nullable: absent in events written before the key ring, meaning false
   */
  record SigningKeyRegistered(
      String keyId,
      String certificatePem,
      String certificateSha256,
      String noUpdateDirectiveBody,
      String noUpdateDirectiveSignature,
      List<Renewal> resigned,
      String certificateChainPem,
      Boolean ring)
      implements EventPayload {
    public SigningKeyRegistered {
      resigned = resigned == null ? List.of() : List.copyOf(resigned);
    }

    /** A registration as written before the key ring: the key replaces every other key of the app. */
    public SigningKeyRegistered(
        String keyId,
        String certificatePem,
        String certificateSha256,
        String noUpdateDirectiveBody,
        String noUpdateDirectiveSignature,
        List<Renewal> resigned) {
      this(keyId, certificatePem, certificateSha256, noUpdateDirectiveBody, noUpdateDirectiveSignature, resigned, null,
          null);
    }

    /** Whether the key joins the ring (true) or replaces every other key (false: an event from before the ring). */
    public boolean joinsRing() {
      return Boolean.TRUE.equals(ring);
    }

    /** The same registration carrying {@code some} of its re-signed entries (the rest go in renewal events). */
    public SigningKeyRegistered withResigned(List<Renewal> some) {
      return new SigningKeyRegistered(keyId, certificatePem, certificateSha256, noUpdateDirectiveBody,
          noUpdateDirectiveSignature, some, certificateChainPem, ring);
    }
  }

  /**
   * A key leaves the ring (never an app's last): nothing is signed with it, devices asking for its keyid are refused.
   * {@code forced} (absent = not, as in every event before it) overrode the key-in-use check: what it overrode beside.
   */
  record SigningKeyRetired(String keyId, Boolean forced, Long askedDevices, String lastAskedAt) implements EventPayload {}

  /**
   * An app's settings changed ({@code updraft apps update}).
   *
   * @param defaultChannel nullable: none; the channel a device request without {@code expo-channel-name}
   *     is answered for
   */
  record AppUpdated(String defaultChannel) implements EventPayload {}

  /**
   * Maps a channel to a branch, optionally with a second branch for a share of devices. Replaces any
   * earlier mapping of that channel. A channel never mapped serves the branch of the same name.
   *
   * @param rollout nullable: no branch rollout
   * @param paused nullable, absent meaning served; {@code true}: every device asking for the channel is
   *     answered "no update" (no update, no roll back) until a mapping without it (a kill switch)
   */
  record ChannelMapped(String channel, String branch, BranchRollout rollout, Boolean paused) implements EventPayload {
    public ChannelMapped(String channel, String branch, BranchRollout rollout) {
      this(channel, branch, rollout, null);
    }

    public boolean pausedNow() {
      return Boolean.TRUE.equals(paused);
    }

    /** The same mapping (branch, rollout and its buckets) paused or served (written without the field). */
    public ChannelMapped withPaused(boolean pause) {
      return new ChannelMapped(channel, branch, rollout, pause ? Boolean.TRUE : null);
    }
  }

  /**
   * A share of a channel's devices served from a second branch.
   *
   * @param percentage 0..100 of devices, bucketed by client id with {@code rolloutId} as the salt
   * @param runtimeVersion nullable: applies to every runtime version
   * @param bucketing nullable: the {@link Bucketing.Algorithm#wireName()} the rollout buckets devices
   *     with; absent in events written before the field, meaning {@code sha256-v1}. A rollout keeps the
   *     algorithm it started with: a mapping that keeps {@code rolloutId} keeps {@code bucketing}.
   */
  record BranchRollout(String rolloutId, String branch, int percentage, String runtimeVersion, String bucketing) {
    /** A new branch rollout bucketed with {@link Bucketing#CURRENT}. */
    public BranchRollout(String rolloutId, String branch, int percentage, String runtimeVersion) {
      this(rolloutId, branch, percentage, runtimeVersion, Bucketing.CURRENT.wireName());
    }

    /**
     * The same rollout (id, second branch, runtime version and bucketing) at another share: what a
     * mapping that keeps this rollout writes, so that its devices keep their buckets.
     */
    public BranchRollout withPercentage(int newPercentage) {
      return new BranchRollout(rolloutId, branch, newPercentage, runtimeVersion, bucketing);
    }
  }

  /** A new update group on a branch: one update per platform. */
  record UpdatePublished(UpdateGroup group) implements EventPayload {}

  /** A roll back to the embedded bundle on a branch: served as the {@code rollBackToEmbedded} directive. */
  record RolledBackToEmbedded(UpdateGroup group) implements EventPayload {}

  /** A per-update rollout's percentage (or guard) changed. */
  record RolloutChanged(String groupId, String rolloutId, int percentage, RolloutGuard guard) implements EventPayload {}

  /** A per-update rollout finished: the update now goes to every device. */
  record RolloutFinished(String groupId, String rolloutId) implements EventPayload {}

  /**
   * A per-update rollout was reverted: the rolled-out group stops being served and {@code replacement}
   * (a republish of the control group, or a roll back to embedded when there was none) becomes the
   * newest entry of its branch.
   *
   * @param reason free text; for an automatic revert the guard's finding
   */
  record RolloutReverted(String groupId, String rolloutId, String reason, UpdateGroup replacement)
      implements EventPayload {}

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
   */
  record PlatformUpdate(
      String platform,
      String updateId,
      String createdAt,
      String body,
      String signature,
      String launchAssetKey,
      List<String> assetKeys,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> signatures) {
    public PlatformUpdate {
      assetKeys = assetKeys == null ? List.of() : List.copyOf(assetKeys);
      signatures = sortedCopy(signatures);
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
          newSignatures);
    }
  }

  /**
   * A per-update rollout.
   *
   * @param percentage 0..100 of devices, bucketed by client id with {@code rolloutId} as the salt
   * @param controlGroupId nullable: the previous newest group for the branch and runtime version, served
   *     to devices outside the rollout; null means those devices get no update from this branch
   * @param guard nullable: no automatic revert
   * @param bucketing nullable: the {@link Bucketing.Algorithm#wireName()} the rollout buckets devices
   *     with; absent in events written before the field, meaning {@code sha256-v1}. A rollout keeps the
   *     algorithm it started with ({@link RolloutChanged} does not carry one).
   */
  record Rollout(String rolloutId, int percentage, String controlGroupId, RolloutGuard guard, String bucketing) {
    /** A new rollout bucketed with {@link Bucketing#CURRENT}. */
    public Rollout(String rolloutId, int percentage, String controlGroupId, RolloutGuard guard) {
      this(rolloutId, percentage, controlGroupId, guard, Bucketing.CURRENT.wireName());
    }
  }

  /**
   * Automatic revert: when, among at least {@code minDevices} devices that received the update within
   * {@code windowSeconds}, more than {@code maxFailureRatePercent} report it failed, the control plane
   * reverts the rollout.
   */
  record RolloutGuard(double maxFailureRatePercent, int minDevices, long windowSeconds) {}

  /**
   * Where a launch asset's bytes can be fetched, in each stored encoding: what an edge's asset route
   * streams to a device that gets the full bundle. A later event for the same {@code sha256} replaces the
   * earlier one (more encodings stored, or fresh pre-signed URLs).
   *
   * @param sha256 lower-case hex SHA-256 of the decoded bytes (the manifest {@code hash}, in hex)
   * @param variants at least the {@link AssetVariant#IDENTITY} one
   */
  record LaunchAssetStored(String sha256, String contentType, long size, List<AssetVariant> variants)
      implements EventPayload {
    public LaunchAssetStored {
      variants = variants == null ? List.of() : List.copyOf(variants);
    }

    /** The variant in {@code encoding}, or null. */
    public AssetVariant variant(String encoding) {
      for (AssetVariant v : variants) {
        if (v.encoding().equals(encoding)) {
          return v;
        }
      }
      return null;
    }
  }

  /**
   * One stored encoding of an asset.
   *
   * @param encoding {@code identity}, {@code gzip}, {@code br} or {@code zstd} (the {@code content-encoding})
   * @param sha256 hex SHA-256 of these (encoded) bytes: what a fetch of {@code url} must hash to
   * @param size bytes at {@code url}
   * @param url absolute URL of these bytes (public, CDN, local route or pre-signed)
   */
  record AssetVariant(String encoding, String sha256, long size, String url) {
    public static final String IDENTITY = "identity";
  }

  /**
   * Bundle patches computed for a group (after its publish, or again with fresh URLs). Each replaces an
   * earlier patch for the same target and base bundle. Only patches at most half the gzip size of the
   * full bundle are recorded; {@code patches} is empty when none was worth keeping.
   */
  record PatchesComputed(String groupId, List<BundlePatch> patches) implements EventPayload {
    public PatchesComputed {
      patches = patches == null ? List.of() : List.copyOf(patches);
    }
  }

  /**
   * A {@code BSDIFF40} patch from one launch asset to another.
   *
   * @param targetSha256 hex SHA-256 of the bundle the patch produces
   * @param baseSha256 hex SHA-256 of the bundle it applies to
   * @param baseUpdateIds the update ids (published or embedded) whose launch asset is the base: what
   *     devices send as their current update
   * @param sha256 hex SHA-256 of the patch bytes (their storage address)
   * @param size patch bytes
   * @param url absolute URL of the patch bytes
   */
  record BundlePatch(
      String platform,
      String targetSha256,
      String baseSha256,
      List<String> baseUpdateIds,
      String sha256,
      long size,
      String url) {
    public BundlePatch {
      baseUpdateIds = baseUpdateIds == null ? List.of() : List.copyOf(baseUpdateIds);
    }
  }

  /**
   * A native build's embedded update: a patch base for devices naming its id, when its expo-updates applies such patches.
   *
   * @param embeddedUpdateId the {@code expo-embedded-update-id} the build sends, lower case
   * @param bundleSha256 hex SHA-256 of the embedded bundle (stored like an asset)
   * @param expoUpdatesVersion nullable (since 2026-12-06): the build's expo-updates release ({@code 57.0.24}); null = unknown
   */
  record BuildRegistered(String platform, String runtimeVersion, String embeddedUpdateId, String bundleSha256, long size,
      String expoUpdatesVersion) implements EventPayload {}

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
   * A branch leaves the app with every group on it (every runtime version). No channel maps to it when it
   * is deleted (the command refuses otherwise); its retention policy goes with it.
   */
  record BranchDeleted(String branch) implements EventPayload {}

  /**
   * A channel's mapping is removed: the channel serves the branch of the same name again, as a channel never
   * mapped does; when it was the app's default channel, requests without a channel are refused again.
   */
  record ChannelDeleted(String channel) implements EventPayload {}

  /**
   * The app is deleted: its tokens stop working, its signing keys are destroyed, its groups stop being served
   * (devices get {@code unknown-app}) and its stored assets become garbage. A later {@code app.created} with
   * the same id starts a new app at sequence 1.
   *
   * @param displayName nullable: the name it had, for the audit trail
   */
  record AppDeleted(String displayName) implements EventPayload {}

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
