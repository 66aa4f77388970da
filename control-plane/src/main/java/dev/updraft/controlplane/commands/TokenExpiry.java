package dev.updraft.controlplane.commands;

import dev.updraft.common.Settings;
import dev.updraft.controlplane.core.CommandException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * When a new token expires. Every issued token expires: {@link #DEFAULT} after issue unless the request says
 * otherwise ({@code expiresIn}, a duration such as {@code 30d}, or {@code expiresAt}, an ISO-8601 instant), at
 * least {@link #MIN} and at most {@link #MAX} after issue. Tokens issued before expiry existed never expire, and
 * neither does the bootstrap admin token (a flag, not an issued token). Pure: the command's clock is passed in.
 */
public final class TokenExpiry {
  /** A new token's life when the request names none. */
  public static final Duration DEFAULT = Duration.ofDays(90);

  /** The longest life a token may be given. */
  public static final Duration MAX = Duration.ofDays(365);

  /** The shortest. */
  public static final Duration MIN = Duration.ofMinutes(1);

  private TokenExpiry() {}

  /**
   * The instant a token issued at {@code now} expires, from at most one of {@code expiresIn} and {@code expiresAt};
   * a 400 {@code invalid-expiry} naming the problem otherwise.
   */
  static Instant resolve(String expiresIn, String expiresAt, Instant now) {
    if (expiresIn != null && expiresAt != null) {
      throw CommandException.badRequest("invalid-expiry", "give expiresIn or expiresAt, not both");
    }
    Instant at;
    if (expiresAt != null) {
      try {
        at = Instant.parse(expiresAt).truncatedTo(ChronoUnit.MILLIS);
      } catch (DateTimeParseException e) {
        throw CommandException.badRequest(
            "invalid-expiry", "expiresAt must be an ISO-8601 instant such as 2027-01-31T00:00:00Z: got '" + expiresAt + "'");
      }
    } else {
      Duration d = DEFAULT;
      if (expiresIn != null) {
        try {
          d = Settings.parseDuration(expiresIn);
        } catch (IllegalArgumentException | ArithmeticException e) {
          throw CommandException.badRequest(
              "invalid-expiry", "expiresIn must be a duration such as 30d, 12h or 90m: got '" + expiresIn + "'");
        }
      }
      if (d.compareTo(MAX) > 0) {
        throw tooFar("expiresIn " + expiresIn);
      }
      at = now.plus(d);
    }
    Duration life = Duration.between(now, at);
    if (life.compareTo(MIN) < 0) {
      throw CommandException.badRequest("invalid-expiry", "a token must live at least 1m: "
          + (expiresAt != null ? "expiresAt " + expiresAt : "expiresIn " + expiresIn) + " is "
          + (life.isNegative() ? "in the past" : "too soon") + " (now " + now + ")");
    }
    if (life.compareTo(MAX) > 0) {
      throw tooFar("expiresAt " + expiresAt);
    }
    return at;
  }

  private static CommandException tooFar(String what) {
    return CommandException.badRequest(
        "invalid-expiry", "a token may live at most " + MAX.toDays() + "d: " + what + " is beyond that");
  }
}
