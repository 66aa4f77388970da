package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.FailedUpdates;
import java.util.ArrayList;
import java.util.List;

/**
 * The per-request decision (architecture.md "Resolving a device request"): channel (paused: "no update") → branch (a second
 * branch for a share of devices) → newest entry for the platform and runtime version → the control
 * entry when the device is outside that entry's per-update rollout → down the line past every entry the
 * device reported failed → compared with what the device runs and has embedded → manifest,
 * {@code noUpdateAvailable} or {@code rollBackToEmbedded}. Both rollouts bucket with the algorithm they
 * recorded and the rule of {@link Bucketing}.
 *
 * <p>The walk past failed entries is what expo-updates expects after a crash: a device whose newest
 * update failed to launch falls back to an earlier one (or its embedded bundle), lists the failed id in
 * {@code expo-recent-failed-update-ids}, and never launches that update again
 * ({@code CheckForUpdateProcedure}, {@code failedLaunchCount}); the newest entry it did not report is the
 * update it should run. It reads only the entries the image prepared ({@link Slot}), so it does not
 * depend on how many earlier groups the image keeps.
 *
 * <p>Pure and allocation-light: map lookups on the immutable image and one small {@link Decision}; a
 * SHA-256 only when a rollout is consulted, a list only when a failed entry is passed over. Thread-safe
 * (stateless).
 */
public final class Resolver {
  /** 404 code for a protocol 0 device whose branch rolled back to embedded (v0 has no directives). */
  public static final String V0_ROLLBACK = "rollback-needs-protocol-1";

  /**
   * How many entries of a line, from where a device starts (the head, or a rollout's control), the walk
   * past failed entries may look at ({@link FailedUpdates#DEPTH}): clients list at most 5 failed updates,
   * so the answer is at most the sixth. The image prepares this many; a device listing more may get "no
   * update".
   */
  public static final int FALLBACK_DEPTH = FailedUpdates.DEPTH;

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
      if (route.pausedNow()) {
        // a paused channel answers "no update" to every device: it keeps what it runs (no roll back either)
        return nothing(app, CheckIn.REASON_CHANNEL_PAUSED, protocol, branch, false, -1);
      }
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
    Prepared[] line = slot.fromHead;
    int bucket = -1;
    if (slot.rolloutId != null) {
      // computed once, for the decision and the check-in; -1 without client id or with an unknown algorithm
      if (slot.bucketing != null) {
        bucket = slot.bucketing.bucket(clientId, slot.rolloutId);
      }
      if (!Bucketing.inside(bucket, slot.percentage)) {
        line = slot.fromControl;
        if (line == null) {
          return nothing(app, CheckIn.REASON_NO_UPDATE_FOR_RUNTIME, protocol, branch, inBranchRollout, bucket);
        }
      }
    }
    int i = 0;
    List<String> skipped = null;
    while (i < line.length && contains(failedIds, line[i].entryId())) {
      if (skipped == null) {
        skipped = new ArrayList<>(failedIds.size());
      }
      skipped.add(line[i].entryId());
      i++;
    }
    if (i == line.length) {
      return nothing(app, CheckIn.REASON_PREVIOUSLY_FAILED, protocol, branch, inBranchRollout, bucket).skipping(skipped);
    }
    return answer(app, line[i], skipped, currentId, embeddedId, protocol, branch, inBranchRollout, bucket);
  }

  /** The answer once the walk chose {@code candidate} (after passing over {@code skipped}, nullable). */
  private static Decision answer(AppImage app, Prepared candidate, List<String> skipped, String currentId,
      String embeddedId, int protocol, String branch, boolean inBranchRollout, int bucket) {
    if (candidate.directive()) {
      if (protocol == 0) {
        return Decision.notServableV0(V0_ROLLBACK, branch, inBranchRollout, bucket).skipping(skipped);
      }
      if (currentId != null && currentId.equalsIgnoreCase(embeddedId)) {
        return Decision.noUpdate(app, CheckIn.REASON_ALREADY_EMBEDDED, branch, inBranchRollout, bucket).skipping(skipped);
      }
      return Decision.rollback(candidate, branch, inBranchRollout, bucket).skipping(skipped);
    }
    if (candidate.entryId().equalsIgnoreCase(currentId)) {
      if (skipped != null) {
        // the device already runs the newest entry it did not report failed
        return nothing(app, CheckIn.REASON_PREVIOUSLY_FAILED, protocol, branch, inBranchRollout, bucket).skipping(skipped);
      }
      if (protocol == 0) {
        // v0 has no "no update": re-send the manifest; the client drops it as not newer (reference server)
        return Decision.manifest(candidate, CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PROTOCOL0_RESEND, branch,
            inBranchRollout, bucket);
      }
      return Decision.noUpdate(app, CheckIn.REASON_ALREADY_LATEST, branch, inBranchRollout, bucket);
    }
    return Decision.manifest(candidate, CheckIn.OUTCOME_UPDATE,
        skipped == null ? CheckIn.REASON_NEW_UPDATE : CheckIn.REASON_SKIPPED_FAILED, branch, inBranchRollout, bucket)
        .skipping(skipped);
  }

  /** "No update": the directive in protocol 1; protocol 0 cannot say it, so a 404 naming why. */
  private static Decision nothing(AppImage app, String reason, int protocol, String branch, boolean inBranch, int bucket) {
    if (protocol == 0) {
      return Decision.notServableV0(reason, branch, inBranch, bucket);
    }
    return Decision.noUpdate(app, reason, branch, inBranch, bucket);
  }

  /** Whether {@code ids} holds {@code id} (null never: directive entries and no-update have no sendable id). */
  private static boolean contains(List<String> ids, String id) {
    if (id == null) {
      return false;
    }
    for (int i = 0, n = ids.size(); i < n; i++) {
      if (ids.get(i).equalsIgnoreCase(id)) {
        return true;
      }
    }
    return false;
  }
}
