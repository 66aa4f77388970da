/**
 * Insights over the telemetry the ingester writes: per update group and platform, per channel, per
 * device ("why didn't my device update?").
 *
 * <p>{@link dev.updraft.controlplane.insights.Insights} is plain Java over the Vert.x PostgreSQL client: every
 * method returns a future of an immutable record. {@link dev.updraft.controlplane.insights.InsightsExtension}
 * mounts the insights routes into the control plane, and with them the automatic-revert guard
 * ({@code dev.updraft.controlplane.guard}), over one telemetry database pool.
 */
package dev.updraft.controlplane.insights;
