package dev.updraft.load.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.check.ResponseCheck;
import org.junit.jupiter.api.Test;

/** The expected-update rule: learning, the grace after a switch, and the errors it names. */
class ExpectationsTest {
  static final String U1 = "11111111-1111-4111-8111-111111111111";
  static final String U2 = "22222222-2222-4222-8222-222222222222";
  static final String OLD = "00000000-0000-4000-8000-000000000000";
  static final long SECOND = 1_000_000_000L;

  final Fleet.Catalog catalog = new Fleet.Catalog();
  final Fleet fleet = new Fleet(10, 1, Fleet.Mix.parse("platforms", "ios"), Fleet.Mix.parse("runtime-versions", "1.0.0"),
      Fleet.Mix.parse("channels", "production"), catalog);
  final Expectations ex = new Expectations(fleet, catalog, 5 * SECOND);
  final Fleet.Key key = fleet.keys.get(0);

  static ResponseCheck.Answer manifest(String id, String createdAt) {
    return new ResponseCheck.Answer(ResponseCheck.Kind.MANIFEST, id, createdAt, "1.0.0", null, null, null, null);
  }

  @Test
  void aDeviceServedTheExpectedUpdateRunsItAndThenGetsNoUpdate() {
    ex.learn(key, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    assertThat(fleet.currentUpdateId(3)).isEqualTo(key.embeddedUpdateId());
    assertThat(ex.outdated(3)).isTrue();
    assertThat(ex.judge(3, manifest(U1, "2026-01-01T00:00:00.000Z"), SECOND).error()).isNull();
    assertThat(fleet.currentUpdateId(3)).isEqualTo(U1);
    assertThat(ex.outdated(3)).isFalse();
    assertThat(ex.judge(3, ResponseCheck.Answer.NO_UPDATE, SECOND).error()).isNull();
    // serving it the update it already runs is redundant (protocol 1 says noUpdateAvailable)
    assertThat(ex.judge(3, manifest(U1, "2026-01-01T00:00:00.000Z"), SECOND).error()).isEqualTo(ErrorKind.REDUNDANT_MANIFEST);
  }

  @Test
  void noUpdateForAnOutdatedDeviceIsAMissedUpdate() {
    ex.learn(key, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    assertThat(ex.judge(4, ResponseCheck.Answer.NO_UPDATE, SECOND).error()).isEqualTo(ErrorKind.MISSED_UPDATE);
  }

  @Test
  void aNewerManifestIsLearnedAndTheOldOneStaysAcceptableDuringTheGrace() {
    ex.learn(key, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    ex.judge(1, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    ex.judge(2, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    ex.judge(5, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    // a publish: device 1 is the first to see U2
    Expectations.Verdict v = ex.judge(1, manifest(U2, "2026-01-02T00:00:00.000Z"), 10 * SECOND);
    assertThat(v.learned()).isTrue();
    assertThat(catalog.id(ex.expectedIdx(key.index()))).isEqualTo(U2);
    // 2 s later another edge still says "no update" to a device on U1: stale, not an error
    Expectations.Verdict stale = ex.judge(2, ResponseCheck.Answer.NO_UPDATE, 12 * SECOND);
    assertThat(stale.error()).isNull();
    assertThat(stale.stale()).isTrue();
    // ... and serves U1 to an embedded device: stale too
    assertThat(ex.judge(7, manifest(U1, "2026-01-01T00:00:00.000Z"), 13 * SECOND).stale()).isTrue();
    // after the grace (5 s) both are errors
    assertThat(ex.judge(5, ResponseCheck.Answer.NO_UPDATE, 16 * SECOND).error()).isEqualTo(ErrorKind.MISSED_UPDATE);
    assertThat(ex.judge(8, manifest(U1, "2026-01-01T00:00:00.000Z"), 16 * SECOND).error()).isEqualTo(ErrorKind.WRONG_UPDATE);
    assertThat(ex.staleWithinGrace.get()).isEqualTo(2);
  }

  @Test
  void anOlderUnknownManifestIsAWrongUpdate() {
    ex.learn(key, manifest(U2, "2026-01-02T00:00:00.000Z"), 0);
    assertThat(ex.judge(1, manifest(OLD, "2025-12-31T00:00:00.000Z"), SECOND).error()).isEqualTo(ErrorKind.WRONG_UPDATE);
    assertThat(fleet.currentUpdateId(1)).isEqualTo(key.embeddedUpdateId());
  }

  @Test
  void aLaterRollbackIsLearnedAndDevicesReturnToEmbedded() {
    ex.learn(key, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    ex.judge(1, manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    ResponseCheck.Answer rb = new ResponseCheck.Answer(ResponseCheck.Kind.ROLLBACK, null, "2026-01-03T00:00:00.000Z", null, null, null, null, null);
    assertThat(ex.judge(1, rb, SECOND).error()).isNull();
    assertThat(fleet.currentUpdateId(1)).isEqualTo(key.embeddedUpdateId());
    assertThat(ex.judge(1, ResponseCheck.Answer.NO_UPDATE, 10 * SECOND).error()).isNull();
    ResponseCheck.Answer early = new ResponseCheck.Answer(ResponseCheck.Kind.ROLLBACK, null, "2025-01-01T00:00:00.000Z", null, null, null, null, null);
    Fleet.Catalog c2 = new Fleet.Catalog();
    Fleet f2 = new Fleet(2, 1, Fleet.Mix.parse("platforms", "ios"), Fleet.Mix.parse("runtime-versions", "1.0.0"),
        Fleet.Mix.parse("channels", "production"), c2);
    Expectations e2 = new Expectations(f2, c2, SECOND);
    e2.learn(f2.keys.get(0), manifest(U1, "2026-01-01T00:00:00.000Z"), 0);
    assertThat(e2.judge(0, early, SECOND).error()).isEqualTo(ErrorKind.WRONG_UPDATE);
  }

  @Test
  void fleetIsDeterministicAndSendsClientIdsInThePlatformsCase() {
    Fleet.Catalog c = new Fleet.Catalog();
    Fleet a = new Fleet(1000, 99, Fleet.Mix.parse("platforms", "ios:60,android:40"), Fleet.Mix.parse("runtime-versions", "1.0.0"),
        Fleet.Mix.parse("channels", "production:90,staging:10"), c);
    Fleet b = new Fleet(1000, 99, Fleet.Mix.parse("platforms", "ios:60,android:40"), Fleet.Mix.parse("runtime-versions", "1.0.0"),
        Fleet.Mix.parse("channels", "production:90,staging:10"), new Fleet.Catalog());
    int ios = 0;
    for (int d = 0; d < 1000; d++) {
      assertThat(a.clientId(d)).isEqualTo(b.clientId(d));
      assertThat(a.key(d).label()).isEqualTo(b.key(d).label());
      assertThat(a.clientId(d)).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
      if (a.key(d).platform().equals("ios")) {
        ios++;
        assertThat(a.clientIdHeader(d)).isEqualTo(a.clientId(d).toUpperCase(java.util.Locale.ROOT));
      } else {
        assertThat(a.clientIdHeader(d)).isEqualTo(a.clientId(d));
      }
    }
    // 60 % of 1000 with a binomial standard deviation of about 15.5
    assertThat(ios).isBetween(540, 660);
    assertThat(a.keys).hasSize(4);
  }
}
