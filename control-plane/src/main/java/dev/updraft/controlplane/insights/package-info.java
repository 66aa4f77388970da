/**
 * Insights over the telemetry the ingester writes: per update group and platform, per channel, per
 * device ("why didn't my device update?"), and the rollout guard's evaluator for automatic reverts.
 *
 * <p>Plain Java over the Vert.x PostgreSQL client: every method returns a future of an immutable record.
 * No HTTP here; the control plane mounts routes on top.
 */
package dev.updraft.controlplane.insights;
