package dev.updraft.controlplane.spi;

import io.vertx.core.Future;
import java.util.List;

/**
 * In-process entry for the automatic-revert guard: the rollouts in progress, and a revert recorded with
 * actor {@code guard} and the guard's reason. Thread-safe.
 */
public interface RolloutControl {

  /** Every active per-update rollout of every app, from the current state. */
  List<ActiveRollout> activeRollouts();

  /**
   * Reverts a rollout as the guard: appends {@code rollout.reverted} (actor {@code guard}, {@code reason})
   * whose replacement republishes the control group, or rolls back to embedded when there was none.
   *
   * @return the replacement group id; fails with a {@code CommandException} (404 unknown group, 409 the
   *     rollout is no longer active, 503 this instance is not the writer)
   */
  Future<String> revertByGuard(String appId, String groupId, String reason);
}
