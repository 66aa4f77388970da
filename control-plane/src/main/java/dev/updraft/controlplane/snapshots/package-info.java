/**
 * Snapshots of the folded state: the control plane (the single writer) writes each app's state at a known
 * position of {@code updraft.events} to the compacted {@code updraft.snapshots}, and starts from them.
 */
package dev.updraft.controlplane.snapshots;
