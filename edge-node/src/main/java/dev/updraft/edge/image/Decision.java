package dev.updraft.edge.image;

import dev.updraft.events.CheckIn;
import java.util.List;

/**
 * What one device gets, and why: the prepared entry to serve and the facts its check-in records.
 * Immutable.
 */
public final class Decision {
  /** The shape of the answer. */
  public enum Kind {
    /** A manifest ({@link #prepared()} is a manifest). */
    MANIFEST,
    /** The {@code noUpdateAvailable} directive ({@link #prepared()} is the app's). */
    NO_UPDATE,
    /** The {@code rollBackToEmbedded} directive ({@link #prepared()} is the entry's). */
    ROLLBACK,
    /**
     * A protocol 0 client whose answer would be a directive: it cannot receive one, so it gets a 404
     * with {@link #errorCode()}, as Expo's reference server does for a v0 roll back.
     */
    NOT_SERVABLE_V0
  }

  private final Kind kind;
  private final Prepared prepared;
  private final String outcome;
  private final String reason;
  private final String branch;
  private final boolean inBranchRollout;
  private final int rolloutBucket;
  private final List<String> skipped;

  Decision(Kind kind, Prepared prepared, String outcome, String reason, String branch, boolean inBranchRollout,
      int rolloutBucket) {
    this(kind, prepared, outcome, reason, branch, inBranchRollout, rolloutBucket, List.of());
  }

  private Decision(Kind kind, Prepared prepared, String outcome, String reason, String branch, boolean inBranchRollout,
      int rolloutBucket, List<String> skipped) {
    this.kind = kind;
    this.prepared = prepared;
    this.outcome = outcome;
    this.reason = reason;
    this.branch = branch;
    this.inBranchRollout = inBranchRollout;
    this.rolloutBucket = rolloutBucket;
    this.skipped = skipped;
  }

  /**
   * The same decision, recording the entries passed over because the device reported them failed
   * (newest first); {@code this} when there were none.
   */
  Decision skipping(List<String> skippedIds) {
    if (skippedIds == null || skippedIds.isEmpty()) {
      return this;
    }
    return new Decision(kind, prepared, outcome, reason, branch, inBranchRollout, rolloutBucket, List.copyOf(skippedIds));
  }

  public Kind kind() {
    return kind;
  }

  /** The entry to serve; null for {@link Kind#NOT_SERVABLE_V0}. */
  public Prepared prepared() {
    return prepared;
  }

  /** A {@code CheckIn.OUTCOME_*} value. */
  public String outcome() {
    return outcome;
  }

  /** A {@code CheckIn.REASON_*} value. */
  public String reason() {
    return reason;
  }

  /** The branch the channel resolved to. */
  public String branch() {
    return branch;
  }

  /** The device fell in the channel's second-branch share. */
  public boolean inBranchRollout() {
    return inBranchRollout;
  }

  /** The device's bucket (0..9999) in the per-update rollout consulted, or -1 when none was. */
  public int rolloutBucket() {
    return rolloutBucket;
  }

  /**
   * The entries of the device's line passed over because it listed them in
   * {@code expo-recent-failed-update-ids}, newest first; empty when none was.
   */
  public List<String> skippedUpdateIds() {
    return skipped;
  }

  /** The manifest id served, or null when no manifest was. */
  public String servedUpdateId() {
    return kind == Kind.MANIFEST ? prepared.entryId() : null;
  }

  /** The group of the manifest or rollback served, or null. */
  public String servedGroupId() {
    return kind == Kind.MANIFEST || kind == Kind.ROLLBACK ? prepared.groupId() : null;
  }

  /** For {@link Kind#NOT_SERVABLE_V0}: the error code of the 404. */
  public String errorCode() {
    return kind == Kind.NOT_SERVABLE_V0 ? reason : null;
  }

  /** Whether the answer is a directive (cannot be sent as a bare JSON manifest). */
  public boolean isDirective() {
    return kind == Kind.NO_UPDATE || kind == Kind.ROLLBACK;
  }

  /**
   * Whether the answer names the device's branch in {@code expo-manifest-filters}: only a manifest or a roll
   * back of that branch does. Clients store the header from every 2xx answer, a "no update" included
   * ({@code Loader.finish}, iOS {@code RemoteAppLoader.processUpdateResponse}), and at the next cold start
   * launch only a stored update that passes it ({@code LauncherSelectionPolicyFilterAware}): a filter sent
   * with "no update" (a paused channel, a branch with nothing for the device's runtime) would send a device
   * running another branch's update back to its embedded bundle. Without the header the client keeps the
   * filters it stored, so the device keeps running what it runs.
   */
  public boolean carriesFilters() {
    return kind == Kind.MANIFEST || kind == Kind.ROLLBACK;
  }

  static Decision manifest(Prepared p, String outcome, String reason, String branch, boolean inBranch, int bucket) {
    return new Decision(Kind.MANIFEST, p, outcome, reason, branch, inBranch, bucket);
  }

  static Decision noUpdate(AppImage app, String reason, String branch, boolean inBranch, int bucket) {
    return new Decision(Kind.NO_UPDATE, app.noUpdate, CheckIn.OUTCOME_NO_UPDATE, reason, branch, inBranch, bucket);
  }

  static Decision rollback(Prepared p, String branch, boolean inBranch, int bucket) {
    return new Decision(Kind.ROLLBACK, p, CheckIn.OUTCOME_ROLLBACK, CheckIn.REASON_ROLLBACK, branch, inBranch, bucket);
  }

  static Decision notServableV0(String code, String branch, boolean inBranch, int bucket) {
    return new Decision(Kind.NOT_SERVABLE_V0, null, CheckIn.OUTCOME_ERROR, code, branch, inBranch, bucket);
  }

  @Override
  public String toString() {
    return "Decision{" + kind + ", outcome=" + outcome + ", reason=" + reason + ", branch=" + branch
        + ", inBranchRollout=" + inBranchRollout + ", bucket=" + rolloutBucket + ", served="
        + (prepared == null ? null : prepared.entryId()) + (skipped.isEmpty() ? "" : ", skipped=" + skipped) + "}";
  }
}
