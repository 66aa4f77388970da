package dev.updraft.controlplane.state;

import java.time.Instant;

/**
 * A per-app token. Only the SHA-256 of its secret is known.
 *
 * @param revokedAt nullable: still valid
 */
public record TokenState(
    String tokenId,
    String role,
    String label,
    String secretSha256,
    Instant issuedAt,
    String issuedBy,
    Instant revokedAt) {

  public boolean revoked() {
    return revokedAt != null;
  }
}
