package dev.updraft.events;

import dev.updraft.events.UpdateEvents.UpdateGroup;

/**
 * Per-update rollouts: a group served to a share of devices, its automatic-revert guard, and its end: the events
 * {@link RolloutChanged}, {@link RolloutFinished}, {@link RolloutReverted}, and the values they carry ({@link
 * Rollout}, {@link RolloutGuard}).
 *
 * <p>A namespace of {@link EventPayload}, which extends it: each record is also named {@code EventPayload.<Name>}
 * (imports use this interface's name). Records immutable.
 */
public interface RolloutEvents {
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
}
