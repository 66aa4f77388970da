package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.controlplane.core.CommandException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a new token expires, from the request and the command's clock. */
class TokenExpiryTest {
  private static final Instant NOW = Instant.parse("2026-12-06T12:00:00.250Z");

  @Test
  void aTokenWithoutAnExpiryGetsNinetyDays() {
    assertThat(TokenExpiry.resolve(null, null, NOW)).isEqualTo(Instant.parse("2027-03-06T12:00:00.250Z"));
  }

  @Test
  void expiresInCountsFromIssue() {
    assertThat(TokenExpiry.resolve("30d", null, NOW)).isEqualTo(Instant.parse("2027-01-05T12:00:00.250Z"));
    assertThat(TokenExpiry.resolve("12h", null, NOW)).isEqualTo(Instant.parse("2026-12-07T00:00:00.250Z"));
    assertThat(TokenExpiry.resolve("365d", null, NOW)).isEqualTo(Instant.parse("2027-12-06T12:00:00.250Z"));
  }

  @Test
  void expiresAtIsTakenAsGiven() {
    assertThat(TokenExpiry.resolve(null, "2027-01-31T00:00:00Z", NOW)).isEqualTo(Instant.parse("2027-01-31T00:00:00Z"));
  }

  @Test
  void refusesALifeAboveAYear() {
    assertRefused("366d", null, "at most 365d");
    assertRefused(null, "2027-12-07T12:00:00Z", "at most 365d");
  }

  @Test
  void refusesAnExpiryInThePastOrUnderAMinute() {
    assertRefused(null, "2026-12-06T11:00:00Z", "in the past");
    assertRefused("30s", null, "at least 1m");
    assertRefused("0d", null, "at least 1m");
  }

  @Test
  void refusesMalformedOrConflictingExpiries() {
    assertRefused("30 days", null, "expiresIn must be a duration such as 30d");
    assertRefused("-5d", null, "expiresIn must be a duration");
    assertRefused("99999999999999999999d", null, "expiresIn must be a duration");
    assertRefused(null, "tomorrow", "expiresAt must be an ISO-8601 instant");
    assertRefused("30d", "2027-01-31T00:00:00Z", "not both");
  }

  private static void assertRefused(String in, String at, String says) {
    assertThatThrownBy(() -> TokenExpiry.resolve(in, at, NOW))
        .isInstanceOfSatisfying(CommandException.class, e -> {
          assertThat(e.status()).isEqualTo(400);
          assertThat(e.code()).isEqualTo("invalid-expiry");
        })
        .hasMessageContaining(says);
  }
}
