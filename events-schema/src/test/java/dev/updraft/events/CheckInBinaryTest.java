package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The compact check-in form: the golden records of both forms decode to the same check-in (old JSON
 * records left in the topic keep decoding), any check-in survives the round trip, and bad bytes are refused
 * with the reason.
 */
class CheckInBinaryTest {

  @Test
  void theGoldenCompactRecordsDecodeAsTheirJsonTwins() throws IOException {
    for (String name : List.of("check-in", "check-in.with-skipped", "check-in.with-keyid", "check-in.with-address")) {
      byte[] json = GoldenFilesTest.golden("/golden-checkin/v1/" + name + ".json");
      byte[] compact = GoldenFilesTest.golden("/golden-checkin/v1/" + name + ".bin");
      CheckIn fromJson = CheckInCodec.decode(json);

      assertThat(CheckInCodec.decode(compact)).as(name).isEqualTo(fromJson);
      assertThat(compact.length).as("%s: compact bytes vs JSON bytes", name).isLessThan(json.length * 2 / 3);
    }
  }

  @Test
  void thisBuildWritesLayout3WithTheAddressBucketAfterTheKeyId() throws IOException {
    byte[] withAddress = GoldenFilesTest.golden("/golden-checkin/v1/check-in.with-address.bin");
    CheckIn c = CheckInCodec.decode(GoldenFilesTest.golden("/golden-checkin/v1/check-in.with-address.json"));

    assertThat(c.keyId()).isEqualTo("k2");
    assertThat(c.addressBucket()).isEqualTo("3f9a0c1d5e7b2468");
    assertThat(withAddress[1]).isEqualTo((byte) 3);
    assertThat(new CheckInBinary().encode(c)).isEqualTo(withAddress);
  }

  @Test
  void layout2RecordsDecodeWithTheirKeyIdAndNoAddressBucket() throws IOException {
    byte[] layout2 = GoldenFilesTest.golden("/golden-checkin/v1/check-in.with-keyid.bin");
    CheckIn c = CheckInCodec.decode(layout2);

    assertThat(layout2[1]).isEqualTo((byte) 2);
    assertThat(c.keyId()).isEqualTo("k2");
    assertThat(c.addressBucket()).isNull();
    // layout 3 = the layout 2 bytes with the layout byte raised and a null string (0) appended
    byte[] expected = Arrays.copyOf(layout2, layout2.length + 1);
    expected[1] = 3;
    assertThat(new CheckInBinary().encode(c)).isEqualTo(expected);
  }

  @Test
  void layout1RecordsDecodeWithNoKeyIdNorAddressBucketAndReencodeAsLayout3() throws IOException {
    for (String name : List.of("check-in", "check-in.with-skipped")) {
      byte[] layout1 = GoldenFilesTest.golden("/golden-checkin/v1/" + name + ".bin");
      CheckIn c = CheckInCodec.decode(layout1);

      assertThat(layout1[1]).as(name).isEqualTo((byte) 1);
      assertThat(c.keyId()).as(name).isNull();
      assertThat(c.addressBucket()).as(name).isNull();
      // layout 3 = the layout 1 bytes with the layout byte raised and two null strings (0 0) appended
      byte[] expected = Arrays.copyOf(layout1, layout1.length + 2);
      expected[1] = 3;
      assertThat(new CheckInBinary().encode(c)).as(name).isEqualTo(expected);
    }
  }

  @Test
  void everyFieldSurvivesTheRoundTrip() throws IOException {
    Random rnd = new Random(42);
    CheckInBinary w = new CheckInBinary();
    for (int i = 0; i < 2_000; i++) {
      CheckIn c = CheckIn.builder()
          .v(1 + rnd.nextInt(3))
          .checkInId("id-" + i)
          .appId("app")
          .platform(rnd.nextBoolean() ? "ios" : "android")
          .runtimeVersion(rnd.nextInt(5) == 0 ? null : "1.0." + rnd.nextInt(9))
          .channel(rnd.nextInt(5) == 0 ? null : "prodüction-" + rnd.nextInt(3)) // not only ASCII
          .clientId(rnd.nextInt(7) == 0 ? null : "c" + rnd.nextLong())
          .currentUpdateId(rnd.nextBoolean() ? null : "u" + rnd.nextInt())
          .embeddedUpdateId(rnd.nextBoolean() ? null : "e" + rnd.nextInt())
          .failedUpdateIds(rnd.nextBoolean() ? List.of() : List.of("f1", "f" + rnd.nextInt()))
          .outcome(CheckIn.OUTCOME_UPDATE)
          .reason(rnd.nextBoolean() ? null : CheckIn.REASON_NEW_UPDATE)
          .branch(rnd.nextBoolean() ? null : "main")
          .inBranchRollout(rnd.nextBoolean())
          .rolloutBucket(rnd.nextBoolean() ? null : rnd.nextInt(10_000))
          .servedUpdateId(rnd.nextBoolean() ? null : "s" + rnd.nextInt())
          .servedGroupId(rnd.nextBoolean() ? null : "g" + rnd.nextInt())
          .fatalError(rnd.nextInt(10) == 0 ? "boom \"quoted\" \n 🚀 " + "x".repeat(rnd.nextInt(1024)) : null)
          .atEpochMillis(rnd.nextInt(20) == 0 ? -rnd.nextInt(1000) : 1_796_032_800_000L + rnd.nextInt())
          .edgeId(rnd.nextBoolean() ? null : "edge-" + rnd.nextInt(4))
          .skippedUpdateIds(rnd.nextBoolean() ? List.of() : List.of("k" + rnd.nextInt()))
          .keyId(rnd.nextBoolean() ? null : "k" + rnd.nextInt(3))
          .addressBucket(rnd.nextBoolean() ? null : Long.toHexString(rnd.nextLong()))
          .build();

      byte[] b = w.encode(c);

      assertThat(CheckInBinary.isCompact(b)).isTrue();
      assertThat(CheckInCodec.decode(b)).isEqualTo(c);
    }
  }

  @Test
  void stringsAroundTheOneByteLengthAndBeyondLatin1SurviveTheRoundTrip() throws IOException {
    CheckInBinary w = new CheckInBinary();
    for (String s : List.of("", "a", "x".repeat(125), "x".repeat(126), "x".repeat(127), "x".repeat(300),
        "\u0141\u00f3d\u017a", "A\u0141", "caf\u00e9", "x".repeat(126) + "\u00e9", "\ud83d\ude80")) {
      CheckIn c = CheckIn.builder().checkInId("id").appId("app").platform("ios").channel(s).clientId(s).fatalError(s)
          .atEpochMillis(1).build();

      assertThat(CheckInCodec.decode(w.encode(c))).as("length %d: %s", s.length(), s).isEqualTo(c);
    }
  }

  @Test
  void badBytesAreRefusedWithTheReason() throws IOException {
    byte[] good = GoldenFilesTest.golden("/golden-checkin/v1/check-in.bin");
    assertThatThrownBy(() -> CheckInCodec.decode(Arrays.copyOf(good, good.length - 3)))
        .isInstanceOf(IOException.class).hasMessageContaining("cut short");
    byte[] newer = good.clone();
    newer[1] = (byte) (CheckInBinary.LAYOUT + 1);
    assertThatThrownBy(() -> CheckInCodec.decode(newer))
        .isInstanceOf(IOException.class).hasMessageContaining("layout " + (CheckInBinary.LAYOUT + 1));
    assertThatThrownBy(() -> CheckInCodec.decode(new byte[] {CheckInBinary.MAGIC}))
        .isInstanceOf(IOException.class);
  }
}
