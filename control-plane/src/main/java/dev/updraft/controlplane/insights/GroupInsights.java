package dev.updraft.controlplane.insights;

import java.time.Instant;
import java.util.List;

/**
 * How an update group is doing, per platform and in total.
 *
 * @param asOf the {@code now} the numbers were computed for
 * @param since24h start of the "24 h" window: the start of {@code asOf}'s hour minus 23 hours
 * @param since7d start of the "7 d" window: the start of {@code asOf}'s hour minus 167 hours
 * @param platforms one entry per platform update asked for, in the order asked
 * @param total sums over the platforms (a device runs one platform, so device counts add up)
 */
public record GroupInsights(
    String appId, Instant asOf, Instant since24h, Instant since7d, List<UpdateStats> platforms, UpdateStats total) {
  public GroupInsights {
    platforms = List.copyOf(platforms);
  }
}
