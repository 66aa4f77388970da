package dev.updraft.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One device request as seen by an edge, written to {@code updraft.telemetry} (key = client id). It
 * carries what the device reported and what it was served and why, so that "why didn't my device
 * update?" is answered from data, not from logs.
 *
 * <p>Built by name, never by position: {@code CheckIn.builder().appId(..).platform(..)...build()}, or
 * {@code c.toBuilder().channel(..).build()} for a copy with some fields changed. The record and its JSON
 * (the field names below) are the wire format; the builder is only a way to call the constructor.
 *
 * @param v wire version of this record, {@link #CURRENT_VERSION}
 * @param checkInId unique per request: the ingester counts each id once
 * @param clientId the lower-cased {@code EAS-Client-ID}; nullable (some clients send none)
 * @param channel nullable: no {@code expo-channel-name}
 * @param currentUpdateId nullable
 * @param embeddedUpdateId nullable
 * @param failedUpdateIds from {@code expo-recent-failed-update-ids}
 * @param skippedUpdateIds the entries the edge passed over because the device listed them in
 *     {@code expo-recent-failed-update-ids}, newest first (empty when none was; absent in check-ins
 *     written before the field)
 * @param outcome one of the {@code OUTCOME_*} constants
 * @param reason one of the {@code REASON_*} constants: why this outcome (for {@link #OUTCOME_ERROR}, the error code)
 * @param branch nullable: the branch the channel resolved to
 * @param inBranchRollout the device fell in the channel's second-branch share
 * @param rolloutBucket nullable: the device's bucket (0..9999) for the per-update rollout consulted
 * @param servedUpdateId nullable: the manifest id served (outcome update)
 * @param servedGroupId nullable: the group of the served update or directive
 * @param fatalError nullable: {@code expo-fatal-error}, at most 1024 characters
 * @param atEpochMillis when the edge answered
 * @param keyId nullable: the {@code keyid} of the app's key ring the device asked for in
 *     {@code expo-expect-signature} (the ring's own spelling); absent when it asked for no signature, asked for a
 *     keyid the ring does not have, and in check-ins written before the field
 * @param addressBucket nullable: a keyed hash of the network prefix the request came from (the /24 of an IPv4
 *     address, the /48 of an IPv6 one), never the address itself: the rollout guard counts at most a few
 *     failing devices per bucket, so one address cannot forge a revert. Absent in check-ins written before the
 *     field and from edges that know no peer address
 */
public record CheckIn(
    int v,
    String checkInId,
    String appId,
    String platform,
    String runtimeVersion,
    String channel,
    String clientId,
    String currentUpdateId,
    String embeddedUpdateId,
    List<String> failedUpdateIds,
    String outcome,
    String reason,
    String branch,
    boolean inBranchRollout,
    Integer rolloutBucket,
    String servedUpdateId,
    String servedGroupId,
    String fatalError,
    long atEpochMillis,
    String edgeId,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> skippedUpdateIds,
    String keyId,
    String addressBucket) {

  public static final int CURRENT_VERSION = 1;

  public static final String OUTCOME_UPDATE = "update";
  public static final String OUTCOME_NO_UPDATE = "noUpdate";
  public static final String OUTCOME_ROLLBACK = "rollBackToEmbedded";
  /**
   * The request was refused (4xx, or 503 while the edge was not ready); {@code reason} then holds the
   * error code of the response body (for example {@code missing-runtime-version}).
   */
  public static final String OUTCOME_ERROR = "error";
  /**
   * Not a manifest request: the edge's launch-asset route sent a bundle patch ({@link #REASON_PATCH_SERVED}) or
   * saw the device fetch the full bundle right after one ({@link #REASON_PATCH_FAILED}: it could not use it), or
   * sent the full bundle ({@link #REASON_FULL_SERVED}, a GET whose bytes started: every full download, the fallback
   * after a patch too). {@code currentUpdateId} is the patch's base (the running update), {@code servedUpdateId} the
   * update it patches to (the requested update: {@code Expo-Requested-Update-ID} / {@code If-Match}; null when the
   * client named none). Counted per base and update (and in the download funnel) only, never as a launch or a device's check-in (readers older than it count it as a check-in:
   * upgrade ingesters before edges).
   */
  public static final String OUTCOME_PATCH = "patch";
  public static final String REASON_PATCH_SERVED = "patch-served";
  public static final String REASON_PATCH_FAILED = "patch-failed";
  /** Outcome {@link #OUTCOME_PATCH}: the edge sent the full launch asset (200) to the device for {@code servedUpdateId}. */
  public static final String REASON_FULL_SERVED = "full-served";

  /**
   * The refusal of a request whose {@code expo-platform} is missing or neither {@code ios} nor {@code android}:
   * its {@code platform} (absent or the value sent) is not a platform of the fleet, so such a check-in is
   * counted among the refusals only, with no device or launch row.
   */
  public static final String REASON_INVALID_PLATFORM = "invalid-platform";

  /** A newer update than the one running was served. */
  public static final String REASON_NEW_UPDATE = "new-update";
  /** The device already runs the newest update for it. */
  public static final String REASON_ALREADY_LATEST = "already-latest";
  /** The branch has nothing for this platform and runtime version. */
  public static final String REASON_NO_UPDATE_FOR_RUNTIME = "no-update-for-runtime";
  /**
   * The newest update was reported failed by this device and nothing older was better: every entry
   * below it was reported failed too, or the next one is what the device runs.
   */
  public static final String REASON_PREVIOUSLY_FAILED = "update-previously-failed";
  /**
   * The device reported the newest update (and maybe more) failed; it was served the newest entry of
   * its line it did not report ({@code skippedUpdateIds} names the ones passed over).
   */
  public static final String REASON_SKIPPED_FAILED = "skipped-failed-update";
  /** The branch's newest entry is a roll back to embedded. */
  public static final String REASON_ROLLBACK = "rollback-to-embedded";
  /** The branch rolled back to embedded and the device already runs its embedded bundle. */
  public static final String REASON_ALREADY_EMBEDDED = "already-embedded";
  /** Protocol 0 clients get the manifest again even when it is the one they run. */
  public static final String REASON_PROTOCOL0_RESEND = "protocol-0-resend";
  /** The channel is paused ({@code updraft channels pause}): no update and no roll back, whatever its branches hold. */
  public static final String REASON_CHANNEL_PAUSED = "channel-paused";

  public CheckIn {
    failedUpdateIds = failedUpdateIds == null ? List.of() : List.copyOf(failedUpdateIds);
    skippedUpdateIds = skippedUpdateIds == null ? List.of() : List.copyOf(skippedUpdateIds);
  }

  /** A builder with {@code v} = {@link #CURRENT_VERSION}, no failed ids, and every other field empty (null, false, 0). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every field of this check-in. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.v = v;
    b.checkInId = checkInId;
    b.appId = appId;
    b.platform = platform;
    b.runtimeVersion = runtimeVersion;
    b.channel = channel;
    b.clientId = clientId;
    b.currentUpdateId = currentUpdateId;
    b.embeddedUpdateId = embeddedUpdateId;
    b.failedUpdateIds = failedUpdateIds;
    b.outcome = outcome;
    b.reason = reason;
    b.branch = branch;
    b.inBranchRollout = inBranchRollout;
    b.rolloutBucket = rolloutBucket;
    b.servedUpdateId = servedUpdateId;
    b.servedGroupId = servedGroupId;
    b.fatalError = fatalError;
    b.atEpochMillis = atEpochMillis;
    b.edgeId = edgeId;
    b.skippedUpdateIds = skippedUpdateIds;
    b.keyId = keyId;
    b.addressBucket = addressBucket;
    return b;
  }

  /** Sets the fields of a {@link CheckIn} by name. Not thread-safe; {@link #build()} may be called again. */
  public static final class Builder {
    private int v = CURRENT_VERSION;
    private String checkInId;
    private String appId;
    private String platform;
    private String runtimeVersion;
    private String channel;
    private String clientId;
    private String currentUpdateId;
    private String embeddedUpdateId;
    private List<String> failedUpdateIds = List.of();
    private String outcome;
    private String reason;
    private String branch;
    private boolean inBranchRollout;
    private Integer rolloutBucket;
    private String servedUpdateId;
    private String servedGroupId;
    private String fatalError;
    private long atEpochMillis;
    private String edgeId;
    private List<String> skippedUpdateIds = List.of();
    private String keyId;
    private String addressBucket;

    private Builder() {}

    public Builder v(int v) {
      this.v = v;
      return this;
    }

    public Builder checkInId(String checkInId) {
      this.checkInId = checkInId;
      return this;
    }

    public Builder appId(String appId) {
      this.appId = appId;
      return this;
    }

    public Builder platform(String platform) {
      this.platform = platform;
      return this;
    }

    public Builder runtimeVersion(String runtimeVersion) {
      this.runtimeVersion = runtimeVersion;
      return this;
    }

    public Builder channel(String channel) {
      this.channel = channel;
      return this;
    }

    public Builder clientId(String clientId) {
      this.clientId = clientId;
      return this;
    }

    public Builder currentUpdateId(String currentUpdateId) {
      this.currentUpdateId = currentUpdateId;
      return this;
    }

    public Builder embeddedUpdateId(String embeddedUpdateId) {
      this.embeddedUpdateId = embeddedUpdateId;
      return this;
    }

    public Builder failedUpdateIds(List<String> failedUpdateIds) {
      this.failedUpdateIds = failedUpdateIds;
      return this;
    }

    public Builder outcome(String outcome) {
      this.outcome = outcome;
      return this;
    }

    public Builder reason(String reason) {
      this.reason = reason;
      return this;
    }

    public Builder branch(String branch) {
      this.branch = branch;
      return this;
    }

    public Builder inBranchRollout(boolean inBranchRollout) {
      this.inBranchRollout = inBranchRollout;
      return this;
    }

    public Builder rolloutBucket(Integer rolloutBucket) {
      this.rolloutBucket = rolloutBucket;
      return this;
    }

    public Builder servedUpdateId(String servedUpdateId) {
      this.servedUpdateId = servedUpdateId;
      return this;
    }

    public Builder servedGroupId(String servedGroupId) {
      this.servedGroupId = servedGroupId;
      return this;
    }

    public Builder fatalError(String fatalError) {
      this.fatalError = fatalError;
      return this;
    }

    public Builder atEpochMillis(long atEpochMillis) {
      this.atEpochMillis = atEpochMillis;
      return this;
    }

    public Builder edgeId(String edgeId) {
      this.edgeId = edgeId;
      return this;
    }

    public Builder skippedUpdateIds(List<String> skippedUpdateIds) {
      this.skippedUpdateIds = skippedUpdateIds;
      return this;
    }

    public Builder keyId(String keyId) {
      this.keyId = keyId;
      return this;
    }

    public Builder addressBucket(String addressBucket) {
      this.addressBucket = addressBucket;
      return this;
    }

    public CheckIn build() {
      return new CheckIn(
          v,
          checkInId,
          appId,
          platform,
          runtimeVersion,
          channel,
          clientId,
          currentUpdateId,
          embeddedUpdateId,
          failedUpdateIds,
          outcome,
          reason,
          branch,
          inBranchRollout,
          rolloutBucket,
          servedUpdateId,
          servedGroupId,
          fatalError,
          atEpochMillis,
          edgeId,
          skippedUpdateIds,
          keyId,
          addressBucket);
    }
  }
}
