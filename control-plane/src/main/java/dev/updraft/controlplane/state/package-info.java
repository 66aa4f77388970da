/**
 * The control plane's state: immutable per-app images folded from {@code updraft.events}. The fold is a
 * pure function of the log (no clock, no randomness), so replaying the log from offset 0 rebuilds the
 * same state, equal by {@code equals}, which is what the replay tests check. The images are persistent
 * (pcollections' trees, {@link dev.updraft.controlplane.state.GroupHistory}): folding an event builds a
 * new image sharing all it did not touch, so readers keep the image they hold and a replay costs
 * O(events × log history), not O(events × history).
 */
package dev.updraft.controlplane.state;
