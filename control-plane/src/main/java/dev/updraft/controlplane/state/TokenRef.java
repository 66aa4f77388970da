package dev.updraft.controlplane.state;

import java.time.Instant;

/**
 * Where a token hash points: its app, id, role and expiry.
 *
 * @param expiresAt nullable: never expires
 */
public record TokenRef(String appId, String tokenId, String role, Instant expiresAt) {

  /** Whether the token is expired at {@code now}. */
  public boolean expiredAt(Instant now) {
    return TokenState.expired(expiresAt, now);
  }
}
