package dev.updraft.edge.checkin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The edge's check-in encoder writes exactly the bytes of the shared codec, which reads them back. */
class CheckInJsonTest {
  private static final String[] SAMPLES = {
    null, "", "a", "production", "0b7c7c0e-3b5c-4a6e-9d83-2c1e7f6a9b10", "quote\" back\\slash /slash",
    "tab\tnew\nline\rret\bback\fform", "ctl\u0001\u001f", "Grüße ✓ 😀", "x".repeat(1024),
    "TypeError: undefined is not an object (evaluating 'a.b')\n    at App (index.bundle:1:2)"
  };

  @Test
  void writesTheBytesOfTheSharedCodec() throws Exception {
    CheckInJson json = new CheckInJson();
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < 2_000; i++) {
      CheckIn c = random(r);
      byte[] mine = json.encode(c);
      assertThat(new String(mine, StandardCharsets.UTF_8)).isEqualTo(new String(CheckInCodec.encode(c), StandardCharsets.UTF_8));
      assertThat(CheckInCodec.decode(mine)).isEqualTo(c);
    }
  }

  private static String pick(SplittableRandom r) {
    return SAMPLES[r.nextInt(SAMPLES.length)];
  }

  private static String nonNull(SplittableRandom r) {
    String s = pick(r);
    return s == null ? "id-" + r.nextInt(1000) : s;
  }

  private static CheckIn random(SplittableRandom r) {
    List<String> failed = new ArrayList<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      failed.add(nonNull(r));
    }
    List<String> skipped = new ArrayList<>();
    for (int i = r.nextInt(3); i > 0; i--) {
      skipped.add(nonNull(r));
    }
    return CheckIn.builder()
        .checkInId(nonNull(r))
        .appId(nonNull(r))
        .platform(nonNull(r))
        .runtimeVersion(pick(r))
        .channel(pick(r))
        .clientId(pick(r))
        .currentUpdateId(pick(r))
        .embeddedUpdateId(pick(r))
        .failedUpdateIds(failed)
        .skippedUpdateIds(skipped)
        .outcome(nonNull(r))
        .reason(nonNull(r))
        .branch(pick(r))
        .inBranchRollout(r.nextBoolean())
        .rolloutBucket(r.nextBoolean() ? null : r.nextInt(10_000))
        .servedUpdateId(pick(r))
        .servedGroupId(pick(r))
        .fatalError(pick(r))
        .atEpochMillis(r.nextLong(0, Long.MAX_VALUE))
        .edgeId(nonNull(r))
        .keyId(pick(r))
        .addressBucket(pick(r))
        .build();
  }
}
