package dev.updraft.controlplane.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Token expiry in the fold, the token index and snapshots, judged against instants given by the test. */
class TokenExpiryFoldTest {
  private static final Instant EXPIRY = Instant.parse("2026-12-30T10:00:00Z");

  private static ControlState state() {
    List<EventEnvelope> log = List.of(
        StateFoldTest.e(1, new AppCreated("Demo")),
        StateFoldTest.e(2, new TokenIssued("tok_old", "publish", "aa".repeat(32), "written before expiry existed", null)),
        StateFoldTest.e(3, new TokenIssued("tok_new", "read", "bb".repeat(32), "dashboard", "2026-12-30T10:00:00Z")),
        StateFoldTest.e(4, new TokenIssued("tok_bad", "read", "cc".repeat(32), "damaged expiry", "next tuesday")));
    return StateFoldTest.fold(log);
  }

  @Test
  void aTokenWithoutExpiryNeverExpires() {
    ControlState s = state();

    TokenRef old = s.tokensBySha256().get("aa".repeat(32));
    assertThat(old.expiresAt()).isNull();
    assertThat(old.expiredAt(Instant.parse("9999-12-31T23:59:59Z"))).isFalse();
    assertThat(s.app("demo").tokens().get("tok_old").expiredAt(Instant.parse("9999-12-31T23:59:59Z"))).isFalse();
  }

  @Test
  void aTokenExpiresAtItsInstantAndNotAMillisecondBefore() {
    ControlState s = state();

    TokenRef ref = s.tokensBySha256().get("bb".repeat(32));
    assertThat(ref.expiresAt()).isEqualTo(EXPIRY);
    assertThat(ref.expiredAt(EXPIRY.minusMillis(1))).isFalse();
    assertThat(ref.expiredAt(EXPIRY)).isTrue();
    assertThat(s.app("demo").tokens().get("tok_new").expiresAt()).isEqualTo(EXPIRY);
    assertThat(s.app("demo").tokens().get("tok_new").expiredAt(EXPIRY.plusSeconds(1))).isTrue();
  }

  @Test
  void anExpiryThatDoesNotParseCountsAsExpired() {
    assertThat(state().tokensBySha256().get("cc".repeat(32)).expiredAt(Instant.parse("2026-01-01T00:00:00Z"))).isTrue();
  }

  @Test
  void aRevokedTokenKeepsItsExpiryInTheListing() {
    ControlState s = StateFold.apply(state(), StateFoldTest.e(5, new TokenRevoked("tok_new")));

    TokenState t = s.app("demo").tokens().get("tok_new");
    assertThat(t.revoked()).isTrue();
    assertThat(t.expiresAt()).isEqualTo(EXPIRY);
    assertThat(s.tokensBySha256().get("bb".repeat(32))).isNull();
  }

  @Test
  void aSnapshotKeepsEachTokensExpiry() {
    ControlState s = state();
    AppSnapshot snap = Snapshots.of(s, "demo", 0, 3);

    assertThat(snap.tokens()).extracting(AppSnapshot.Token::tokenId, AppSnapshot.Token::expiresAt)
        .contains(
            org.assertj.core.groups.Tuple.tuple("tok_old", null),
            org.assertj.core.groups.Tuple.tuple("tok_new", "2026-12-30T10:00:00Z"));
    ControlState restored = Snapshots.restore(ControlState.EMPTY, snap);
    assertThat(restored.tokensBySha256().get("bb".repeat(32)).expiresAt()).isEqualTo(EXPIRY);
    assertThat(restored.tokensBySha256().get("aa".repeat(32)).expiresAt()).isNull();
    assertThat(restored.app("demo").tokens()).isEqualTo(s.app("demo").tokens());
  }
}
