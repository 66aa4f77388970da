package dev.updraft.controlplane.render;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Time as Expo clients read it: exactly {@code yyyy-MM-ddTHH:mm:ss.SSSZ} (JavaScript {@code toISOString}),
 * three fraction digits, UTC. Thread-safe.
 */
public final class ExpoTime {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private ExpoTime() {}

  public static String format(Instant t) {
    return FORMAT.format(t);
  }

  public static Instant parse(String s) {
    try {
      return Instant.from(FORMAT.parse(s));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("not an Expo timestamp (yyyy-MM-ddTHH:mm:ss.SSSZ): '" + s + "'", e);
    }
  }

  /**
   * The timestamp for a new entry on a branch and runtime version: now (to the millisecond), or one
   * millisecond after {@code latest} when the clock has not moved past it, so that every new entry is
   * strictly later than every earlier one (clients order updates by it and apply a roll back only when
   * its commit time is later than the running update's).
   *
   * @param latest nullable: the latest {@code createdAt}/{@code commitTime} on that branch and runtime
   */
  public static Instant nextAfter(Instant now, Instant latest) {
    Instant t = now.truncatedTo(ChronoUnit.MILLIS);
    if (latest != null && !t.isAfter(latest)) {
      t = latest.truncatedTo(ChronoUnit.MILLIS).plusMillis(1);
    }
    return t;
  }
}
