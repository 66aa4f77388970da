package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How {@code updraft tokens list} shows a token's expiry. */
class TokensListTextTest {

  @Test
  void showsWhenATokenExpiresHasExpiredOrNeverDoes() throws Exception {
    assertThat(TokensCommand.List.expiry(Api.JSON.readTree("{\"expiresAt\":\"2027-01-05T12:00:00Z\",\"expired\":false}")))
        .isEqualTo("expires 2027-01-05T12:00:00Z");
    assertThat(TokensCommand.List.expiry(Api.JSON.readTree("{\"expiresAt\":\"2026-01-05T12:00:00Z\",\"expired\":true}")))
        .isEqualTo("expired 2026-01-05T12:00:00Z");
    assertThat(TokensCommand.List.expiry(Api.JSON.readTree("{\"expiresAt\":null,\"expired\":false}"))).isEqualTo("never expires");
    assertThat(TokensCommand.List.expiry(Api.JSON.readTree("{}"))).as("a server older than expiry").isEqualTo("never expires");
  }
}
