/**
 * The control plane's state: immutable per-app images folded from {@code updraft.events}. The fold is a
 * pure function of the log (no clock, no randomness), so replaying the log from offset 0 rebuilds the
 * same state, equal by {@code equals}, which is what the replay tests check.
 */
package dev.updraft.controlplane.state;
