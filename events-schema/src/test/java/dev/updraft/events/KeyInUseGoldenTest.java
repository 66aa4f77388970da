package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.SigningEvents.SigningKeyRetired;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keys in use: {@code CheckIn.keyId} (the keyid a device asked for; absent before the field) and
 * {@code SigningKeyRetired.forced} (absent: not forced).
 */
class KeyInUseGoldenTest {

  @Test
  void aCheckInNamingTheAskedKeyIdDecodes() throws IOException {
    CheckIn c = CheckInCodec.decode(GoldenFilesTest.golden("/golden-checkin/v1/check-in.with-keyid.json"));

    assertThat(c).isEqualTo(CheckIn.builder()
        .v(1)
        .checkInId("e1c0ffee-0000-4000-8000-000000000003")
        .appId("demo")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId("2f8e2c4e-8e1d-4bd5-9a5e-6a3f1e0c9b7d")
        .currentUpdateId("0b6d8f3a-2222-4b4b-9c9c-000000000003")
        .embeddedUpdateId("0b6d8f3a-2222-4b4b-9c9c-000000000003")
        .failedUpdateIds(List.of("11111111-2222-4333-8444-555555555555"))
        .outcome(CheckIn.OUTCOME_UPDATE)
        .reason(CheckIn.REASON_NEW_UPDATE)
        .branch("production")
        .rolloutBucket(417)
        .servedUpdateId("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f")
        .servedGroupId("5b0e3c0a-1111-4a4a-8b8b-000000000001")
        .atEpochMillis(1796032800123L)
        .edgeId("edge-1")
        .keyId("k2")
        .build());
  }

  @Test
  void checkInsWrittenBeforeTheFieldAskedForNoKey() throws IOException {
    for (String f : List.of("check-in.json", "check-in.bin", "check-in.with-skipped.json", "check-in.with-skipped.bin")) {
      assertThat(CheckInCodec.decode(GoldenFilesTest.golden("/golden-checkin/v1/" + f)).keyId()).as(f).isNull();
    }
  }

  @Test
  void aCheckInWithoutAKeyIdIsWrittenWithoutTheField() {
    CheckIn c = CheckIn.builder().checkInId("c").appId("demo").platform("ios").build();

    assertThat(new String(CheckInCodec.encode(c), StandardCharsets.UTF_8)).doesNotContain("keyId");
  }

  @Test
  void aRetirementWrittenBeforeTheFieldWasNotForced() throws IOException {
    SigningKeyRetired r = (SigningKeyRetired) known("/golden/v1/signing-key.retired.json").payload();

    assertThat(r).isEqualTo(new SigningKeyRetired("main", null, null, null));
  }

  @Test
  void aForcedRetirementDecodesWithWhatItOverrode() throws IOException {
    EventEnvelope e = known("/golden/v1/signing-key.retired.forced.json");

    assertThat(e.sequence()).isEqualTo(15);
    assertThat(e.payload()).isEqualTo(new SigningKeyRetired("k2", true, 3L, "2026-11-30T09:58:00Z"));
  }

  @Test
  void aRetirementThatWasNotForcedIsWrittenAsBefore() {
    String json = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "admin",
        new SigningKeyRetired("main", null, null, null))), StandardCharsets.UTF_8);

    assertThat(json).contains("\"payload\":{\"keyId\":\"main\"}");
  }

  private static EventEnvelope known(String path) throws IOException {
    Decoded d = EventCodec.decode(GoldenFilesTest.golden(path));
    assertThat(d).as(path).isInstanceOf(Decoded.Known.class);
    return ((Decoded.Known) d).envelope();
  }
}
