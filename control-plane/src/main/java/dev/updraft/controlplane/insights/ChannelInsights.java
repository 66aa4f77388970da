package dev.updraft.controlplane.insights;

import java.time.Instant;
import java.util.List;

/**
 * Adoption on one channel: which updates its devices run, and how many run the embedded bundle versus an
 * over-the-air update.
 *
 * @param channel null for devices that sent no channel
 * @param devices devices whose newest check-in names this channel
 * @param embeddedDevices of those, running their embedded bundle
 * @param otaDevices of those, running an over-the-air update
 * @param unknownDevices of those, reporting no current update
 * @param since7d start of the launch window (see {@link GroupInsights#since7d()})
 * @param launches7d check-ins on this channel in the window, with or without a client id
 * @param embeddedLaunches7d of those, on the embedded bundle
 * @param otaLaunches7d of those, on an over-the-air update
 * @param updates per (platform, update), most devices first
 */
public record ChannelInsights(
    String appId,
    String channel,
    Instant asOf,
    long devices,
    long embeddedDevices,
    long otaDevices,
    long unknownDevices,
    Instant since7d,
    long launches7d,
    long embeddedLaunches7d,
    long otaLaunches7d,
    List<ChannelAdoption> updates) {
  public ChannelInsights {
    updates = List.copyOf(updates);
  }
}
