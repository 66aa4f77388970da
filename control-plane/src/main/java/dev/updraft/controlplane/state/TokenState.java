package dev.updraft.controlplane.state;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * A per-app token. Only the SHA-256 of its secret is known.
 *
 * @param revokedAt nullable: still valid
 * @param expiresAt nullable: never expires (every token issued before expiry existed); refused from this instant on
 */
public record TokenState(
    String tokenId,
    String role,
    String label,
    String secretSha256,
    Instant issuedAt,
    String issuedBy,
    Instant revokedAt,
    Instant expiresAt) {

  public boolean revoked() {
    return revokedAt != null;
  }

  /** Whether the token is expired at {@code now} (at its {@code expiresAt} or later). */
  public boolean expiredAt(Instant now) {
    return expired(expiresAt, now);
  }

  /** Whether an expiry ({@code null}: never) has passed at {@code now}. */
  static boolean expired(Instant expiresAt, Instant now) {
    return expiresAt != null && !now.isBefore(expiresAt);
  }

  /**
   * The instant of an event's or a snapshot's {@code expiresAt}: null when absent (never expires); a value that does
   * not parse (no writer makes one) expires the token at the epoch, so a damaged field never grants a token more life.
   */
  static Instant parseExpiry(String expiresAt) {
    if (expiresAt == null) {
      return null;
    }
    try {
      return Instant.parse(expiresAt);
    } catch (DateTimeParseException e) {
      return Instant.EPOCH;
    }
  }
}
