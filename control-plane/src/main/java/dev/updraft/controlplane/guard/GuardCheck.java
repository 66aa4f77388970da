package dev.updraft.controlplane.guard;

/**
 * The guard's numbers for one update of a rollout, or for all of them together.
 *
 * @param updateId null for all the rollout's updates together
 * @param receivedDevices distinct devices first served the update within the guard's window
 * @param failedDevices of those, the devices that reported it failed (at any time since)
 * @param failureRatePercent {@code failedDevices / receivedDevices} in percent; 0 when none received it
 * @param exceeds at least the guard's minimum number of devices received it, and the rate is strictly
 *     above the guard's maximum
 */
public record GuardCheck(String updateId, long receivedDevices, long failedDevices, double failureRatePercent, boolean exceeds) {}
