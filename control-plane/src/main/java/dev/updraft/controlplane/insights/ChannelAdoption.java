package dev.updraft.controlplane.insights;

/**
 * The devices of a channel running one update.
 *
 * @param updateId null for devices that reported no current update
 * @param devices devices whose newest check-in runs it on this channel
 * @param embeddedDevices of those, running it as their embedded bundle
 * @param otaDevices of those, running it as an over-the-air update
 * @param sharePercent {@code devices} among all devices of the channel, in percent
 */
public record ChannelAdoption(
    String platform, String updateId, long devices, long embeddedDevices, long otaDevices, double sharePercent) {}
