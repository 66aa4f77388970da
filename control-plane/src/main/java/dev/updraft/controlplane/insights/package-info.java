/**
 * Insights over the telemetry the ingester writes: per update group and platform, per channel, per
 * device ("why didn't my device update?"), and the automatic-revert guard.
 *
 * <p>{@link dev.updraft.controlplane.insights.Insights} and
 * {@link dev.updraft.controlplane.guard.RolloutGuardEvaluator} are plain Java over the Vert.x PostgreSQL
 * client: every method returns a future of an immutable record.
 * {@link dev.updraft.controlplane.insights.InsightsExtension} mounts them into the control plane: the
 * insights routes and the periodic guard that reverts a rollout whose failure rate passed its limit.
 */
package dev.updraft.controlplane.insights;
