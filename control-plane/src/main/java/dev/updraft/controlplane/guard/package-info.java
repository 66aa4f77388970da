/**
 * The automatic-revert guard: {@link dev.updraft.controlplane.guard.RolloutGuardEvaluator} decides from the
 * telemetry whether a guarded rollout's failure rate passed its limit ({@link dev.updraft.controlplane.guard.GuardVerdict}),
 * and {@link dev.updraft.controlplane.guard.AutoRevertGuard} periodically reverts such a rollout through
 * {@link dev.updraft.controlplane.spi.RolloutControl}. A writer, apart from the insights' reads; mounted by
 * {@code InsightsExtension}.
 */
package dev.updraft.controlplane.guard;
