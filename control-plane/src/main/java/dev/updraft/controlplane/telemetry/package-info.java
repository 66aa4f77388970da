/**
 * The control plane's connection to the telemetry database ({@link dev.updraft.controlplane.telemetry.TelemetryDb}),
 * shared by the insights, the automatic-revert guard and the history reads.
 */
package dev.updraft.controlplane.telemetry;
