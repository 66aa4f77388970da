package dev.updraft.controlplane.insights;

import dev.updraft.events.CheckIn;
import java.time.Instant;
import java.util.List;

/**
 * One device as its newest check-in left it: what it reported, and what it was served and why. Answers
 * "why didn't my device update?" without reading logs; {@link #explanation()} says it in one line.
 *
 * @param clientId the lower-cased {@code EAS-Client-ID}
 * @param source {@code embedded} (runs its embedded bundle), {@code ota} (runs another update) or
 *     {@code unknown} (reported no current update)
 * @param failedUpdateIds what it last sent in {@code expo-recent-failed-update-ids}
 * @param fatalError the last {@code expo-fatal-error} it sent (clients send one once, after the crash);
 *     null when never
 * @param fatalErrorAt when that was; null when never
 * @param checkIns every check-in of the device
 * @param served what its newest check-in was answered, and why
 * @param skippedUpdateIds the entries the edge passed over in its newest answer because the device reported
 *     them failed, newest first
 */
public record DeviceRecord(
    String appId,
    String clientId,
    String platform,
    String runtimeVersion,
    String channel,
    String currentUpdateId,
    String embeddedUpdateId,
    String source,
    List<String> failedUpdateIds,
    String fatalError,
    Instant fatalErrorAt,
    Instant firstSeen,
    Instant lastSeen,
    long checkIns,
    String lastCheckInId,
    String edgeId,
    Served served,
    List<String> skippedUpdateIds) {

  public DeviceRecord {
    failedUpdateIds = failedUpdateIds == null ? List.of() : List.copyOf(failedUpdateIds);
    skippedUpdateIds = skippedUpdateIds == null ? List.of() : List.copyOf(skippedUpdateIds);
  }

  /**
   * The edge's decision for the newest check-in.
   *
   * @param outcome a {@code CheckIn.OUTCOME_*} value: {@code update}, {@code noUpdate} or
   *     {@code rollBackToEmbedded}
   * @param reason a {@code CheckIn.REASON_*} value
   * @param branch the branch the channel resolved to; null when unknown
   * @param inBranchRollout whether the device fell in the channel's second-branch share
   * @param rolloutBucket the device's bucket (0..9999) in the per-update rollout consulted; null when none
   * @param updateId the update served; null when none
   * @param groupId the group of the update or directive served; null when none
   * @param firstServedAt when the device was first served {@code updateId} (its receipt); null when none or unknown
   */
  public record Served(
      String outcome,
      String reason,
      String branch,
      boolean inBranchRollout,
      Integer rolloutBucket,
      String updateId,
      String groupId,
      Instant firstServedAt) {

    /**
     * The {@code expo-manifest-filters} value the answer carried: {@code branchname="<branch>"} with a manifest
     * or a roll back of the branch, null with "no update" (edges send filters only with what the branch
     * serves, protocol.md §2: clients store them from every answer and launch only what passes them).
     */
    public String filters() {
      boolean carries = CheckIn.OUTCOME_UPDATE.equals(outcome) || CheckIn.OUTCOME_ROLLBACK.equals(outcome)
          || CheckIn.REASON_PROTOCOL0_RESEND.equals(reason);
      if (!carries || branch == null) {
        return null;
      }
      StringBuilder sb = new StringBuilder("branchname=\"");
      for (int i = 0; i < branch.length(); i++) {
        char c = branch.charAt(i);
        sb.append(c == '"' || c == '\\' ? "\\" : "").append(c);
      }
      return sb.append('"').toString();
    }

    /** Without the time of the first serving (unknown). */
    public Served(String outcome, String reason, String branch, boolean inBranchRollout, Integer rolloutBucket, String updateId,
        String groupId) {
      this(outcome, reason, branch, inBranchRollout, rolloutBucket, updateId, groupId, null);
    }
  }

  /**
   * The decision in one line: channel → branch (and the branch rollout) → rollout bucket → the update
   * chosen, or why there was none. For example {@code channel "production" → branch "main" → rollout
   * bucket 417 → no update: this device reported the newest update failed (failed: 9f1c…)}.
   */
  public String explanation() {
    StringBuilder sb = new StringBuilder();
    sb.append("channel ").append(channel == null ? "(none sent)" : quote(channel));
    sb.append(" → branch ").append(served.branch() == null ? "(unknown)" : quote(served.branch()));
    if (served.inBranchRollout()) {
      sb.append(" (in the channel's branch rollout)");
    }
    if (served.rolloutBucket() != null) {
      sb.append(" → rollout bucket ").append(served.rolloutBucket());
    }
    sb.append(" → ").append(decision());
    return sb.toString();
  }

  private String decision() {
    String reason = served.reason() == null ? "" : served.reason();
    switch (reason) {
      case CheckIn.REASON_NEW_UPDATE:
        return "update " + served.updateId() + group() + ": newer than the running "
            + (currentUpdateId == null ? "(unknown)" : currentUpdateId) + servedBefore();
      case CheckIn.REASON_ALREADY_LATEST:
        return "no update: already runs the newest update " + (currentUpdateId == null ? "(unknown)" : currentUpdateId);
      case CheckIn.REASON_NO_UPDATE_FOR_RUNTIME:
        return "no update: the branch has no update for " + platform + " runtime version "
            + (runtimeVersion == null ? "(none sent)" : quote(runtimeVersion)) + keeps();
      case CheckIn.REASON_PREVIOUSLY_FAILED:
        return "no update: this device reported the newest update failed (failed: " + String.join(", ", failedUpdateIds) + ")";
      case CheckIn.REASON_SKIPPED_FAILED:
        return "update " + served.updateId() + group() + ": the newest this device did not report failed; " + skipped()
            + servedBefore();
      case CheckIn.REASON_ROLLBACK:
        return "roll back to the embedded bundle " + (embeddedUpdateId == null ? "(unknown)" : embeddedUpdateId) + group()
            + (skippedUpdateIds.isEmpty() ? "" : "; " + skipped());
      case CheckIn.REASON_ALREADY_EMBEDDED:
        return "no update: the branch rolled back to embedded and the device already runs its embedded bundle";
      case CheckIn.REASON_CHANNEL_PAUSED:
        return "no update: the channel is paused (`updraft channels resume` serves it again)" + keeps();
      case CheckIn.REASON_PROTOCOL0_RESEND:
        return "update " + served.updateId() + group() + " sent again (protocol 0 clients get the manifest they run)";
      default:
        return served.outcome() + " (" + (reason.isEmpty() ? "no reason recorded" : reason) + ")";
    }
  }

  /**
   * When the device was served the same update at an earlier check-in and still does not run it: "downloaded but
   * never launched" (or never downloaded), the first question when an update does not take. Empty otherwise.
   */
  private String servedBefore() {
    Instant first = served.firstServedAt();
    if (first == null || lastSeen == null || !first.isBefore(lastSeen) || served.updateId() == null
        || served.updateId().equals(currentUpdateId)) {
      return "";
    }
    return "; it was first served this update at " + first + " and has asked again since without running it: its"
        + " download fails, or the app has not restarted since the download (its failed ids and fatal error say more)";
  }

  /**
   * What a "no update" without filters leaves the device on: the answer carries no
   * {@code expo-manifest-filters}, so the client launches what it ran before.
   */
  private String keeps() {
    return "; the answer carries no filters, so the device keeps running "
        + (currentUpdateId == null ? "what it runs" : currentUpdateId);
  }

  /** "skipped a: reported failed, skipped b: reported failed". */
  private String skipped() {
    StringBuilder sb = new StringBuilder();
    for (String id : skippedUpdateIds) {
      sb.append(sb.length() == 0 ? "" : ", ").append("skipped ").append(id).append(": reported failed");
    }
    return sb.toString();
  }

  private String group() {
    return served.groupId() == null ? "" : " (group " + served.groupId() + ")";
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }
}
