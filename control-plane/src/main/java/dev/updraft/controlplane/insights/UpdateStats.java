package dev.updraft.controlplane.insights;

/**
 * How one platform's update (or a whole group, in {@link GroupInsights#total()}) is doing.
 *
 * <p>Windows are whole hours: "24 h" is the current hour and the 23 before it, "7 d" the current hour and
 * the 167 before it (see {@link GroupInsights#since24h()}).
 *
 * @param platform null for a group total
 * @param updateId null for a group total
 * @param devicesNow devices whose newest check-in reports this update as the one running
 * @param launches24h check-ins running this update (with or without a client id) in the last 24 h
 * @param launches7d the same over 7 days
 * @param failureReports24h check-ins that listed this update in {@code expo-recent-failed-update-ids}
 *     in the last 24 h (a device repeats its list on every check-in)
 * @param failureReports7d the same over 7 days
 * @param failedDevices distinct devices that ever reported this update failed
 * @param receivedDevices distinct devices that were ever served this update
 * @param failureRatePercent {@code failedDevices} among the distinct devices that received it or reported
 *     it failed, in percent; null when there are none
 */
public record UpdateStats(
    String platform,
    String updateId,
    long devicesNow,
    long launches24h,
    long launches7d,
    long failureReports24h,
    long failureReports7d,
    long failedDevices,
    long receivedDevices,
    Double failureRatePercent) {}
