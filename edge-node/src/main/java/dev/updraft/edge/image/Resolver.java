package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import dev.updraft.events.EventPayload.BranchRollout;
import dev.updraft.events.EventPayload.ChannelMapped;
import java.util.List;

/**
 * The per-request decision (architecture.md "Resolving a device request"): channel → branch (a second
 * branch for a share of devices) → newest entry for the platform and runtime version → the control
 * entry when the device is outside that entry's per-update rollout → compared with what the device runs,
 * has embedded and reported failed → manifest, {@code noUpdateAvailable} or {@code rollBackToEmbedded}.
 * Both rollouts bucket with the algorithm they recorded and the rule of {@link Bucketing}.
 *
 * <p>Pure and allocation-light: map lookups on the immutable image and one small {@link Decision}; a
 * SHA-256 only when a rollout is consulted. Thread-safe (stateless).
 */
public final class Resolver {
  /** 404 code for a protocol 0 device whose branch rolled back to embedded (v0 has no directives). */
  public static final String V0_ROLLBACK = "rollback-needs-protocol-1";

  private Resolver() {}

  /**
   * Decides the answer for one device.
   *
   * @param platform {@link Platforms#IOS} or {@link Platforms#ANDROID} (the constants)
   * @param clientId the lower-cased {@code EAS-Client-ID}, or null
   * @param currentId {@code expo-current-update-id}, or null
   * @param embeddedId {@code expo-embedded-update-id}, or null
   * @param failedIds {@code expo-recent-failed-update-ids}, lower case
   * @param protocol 0 or 1
   */
  public static Decision resolve(
      AppImage app,
      String platform,
      String runtimeVersion,
      String channel,
      String clientId,
      String currentId,
      String embeddedId,
      List<String> failedIds,
      int protocol) {
    ChannelMapped route = app.channels.get(channel);
    String branch = channel; // a channel never mapped serves the branch of its own name
    boolean inBranchRollout = false;
    if (route != null) {
      branch = route.branch();
      BranchRollout r = route.rollout();
      if (r != null
          && (r.runtimeVersion() == null || r.runtimeVersion().equals(runtimeVersion))
          && Bucketing.inRollout(Bucketing.Algorithm.named(r.bucketing()), clientId, r.rolloutId(), r.percentage())) {
        branch = r.branch();
        inBranchRollout = true;
      }
    }
    Slot slot = app.slot(branch, runtimeVersion, platform);
    if (slot == null) {
      return nothing(app, CheckIn.REASON_NO_UPDATE_FOR_RUNTIME, protocol, branch, inBranchRollout, -1);
    }
    Prepared candidate = slot.head;
    int bucket = -1;
    if (slot.rolloutId != null) {
      // computed once, for the decision and the check-in; -1 without client id or with an unknown algorithm
      if (slot.bucketing != null) {
        bucket = slot.bucketing.bucket(clientId, slot.rolloutId);
      }
      if (!Bucketing.inside(bucket, slot.percentage)) {
        candidate = slot.control;
        if (candidate == null) {
          return nothing(app, CheckIn.REASON_NO_UPDATE_FOR_RUNTIME, protocol, branch, inBranchRollout, bucket);
        }
      }
    }
    if (candidate.directive()) {
      if (protocol == 0) {
        return Decision.notServableV0(V0_ROLLBACK, branch, inBranchRollout, bucket);
      }
      if (currentId != null && currentId.equalsIgnoreCase(embeddedId)) {
        return Decision.noUpdate(app, CheckIn.REASON_ALREADY_EMBEDDED, branch, inBranchRollout, bucket);
      }
      return Decision.rollback(candidate, branch, inBranchRollout, bucket);
    }
    if (contains(failedIds, candidate.entryId())) {
      return nothing(app, CheckIn.REASON_PREVIOUSLY_FAILED, protocol, branch, inBranchRollout, bucket);
    }
    if (candidate.entryId().equalsIgnoreCase(currentId)) {
      if (protocol == 0) {
        // v0 has no "no update": re-send the manifest; the client drops it as not newer (reference server)
        return Decision.manifest(candidate, CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PROTOCOL0_RESEND, branch,
            inBranchRollout, bucket);
      }
      return Decision.noUpdate(app, CheckIn.REASON_ALREADY_LATEST, branch, inBranchRollout, bucket);
    }
    return Decision.manifest(candidate, CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, branch, inBranchRollout,
        bucket);
  }

  /** "No update": the directive in protocol 1; protocol 0 cannot say it, so a 404 naming why. */
  private static Decision nothing(AppImage app, String reason, int protocol, String branch, boolean inBranch, int bucket) {
    if (protocol == 0) {
      return Decision.notServableV0(reason, branch, inBranch, bucket);
    }
    return Decision.noUpdate(app, reason, branch, inBranch, bucket);
  }

  private static boolean contains(List<String> ids, String id) {
    for (int i = 0, n = ids.size(); i < n; i++) {
      if (ids.get(i).equalsIgnoreCase(id)) {
        return true;
      }
    }
    return false;
  }
}
