package dev.updraft.controlplane.spi;

import dev.updraft.events.RolloutEvents.RolloutGuard;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A per-update rollout in progress, as the automatic-revert guard sees it.
 *
 * @param updateIds platform to the manifest id devices report in their check-ins
 * @param controlGroupId nullable
 * @param guard nullable: no automatic revert was asked for
 * @param changedAt when the percentage or guard last changed (or the start)
 * @param controlUpdateIds the control group's update ids (empty without one): an error group reported on them is not
 *     new in this rollout's update, so it never fires the guard
 */
public record ActiveRollout(
    String appId,
    String groupId,
    String rolloutId,
    String branch,
    String runtimeVersion,
    int percentage,
    String controlGroupId,
    RolloutGuard guard,
    Map<String, String> updateIds,
    Instant startedAt,
    Instant changedAt,
    List<String> controlUpdateIds) {
  public ActiveRollout {
    controlUpdateIds = controlUpdateIds == null ? List.of() : List.copyOf(controlUpdateIds);
  }

  /** A rollout whose control group's update ids are not known (none). */
  public ActiveRollout(String appId, String groupId, String rolloutId, String branch, String runtimeVersion, int percentage, String controlGroupId,
      RolloutGuard guard, Map<String, String> updateIds, Instant startedAt, Instant changedAt) {
    this(appId, groupId, rolloutId, branch, runtimeVersion, percentage, controlGroupId, guard, updateIds, startedAt, changedAt, List.of());
  }
}
