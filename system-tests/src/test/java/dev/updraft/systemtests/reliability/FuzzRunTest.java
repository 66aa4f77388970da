package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The manifest fuzz explores: a seed per run, replayable, and failures that say how to send the input again. */
class FuzzRunTest {
  @AfterEach
  void clear() {
    System.clearProperty(FuzzRun.SEED_PROPERTY);
    System.clearProperty(FuzzRun.COUNT_PROPERTY);
  }

  @Test
  void shouldDrawAFreshSeedForEveryRunWhenNoneIsGiven() {
    Set<Long> seeds = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      FuzzRun run = FuzzRun.fromSystemProperties();
      assertThat(run.replayed()).isFalse();
      seeds.add(run.seed());
    }
    assertThat(seeds).as("five runs, five seeds").hasSize(5);
    assertThat(FuzzRun.fromSystemProperties().count()).isEqualTo(FuzzRun.DEFAULT_COUNT);
  }

  @Test
  void shouldReplayTheGivenSeedAndCount() {
    System.setProperty(FuzzRun.SEED_PROPERTY, "-42");
    System.setProperty(FuzzRun.COUNT_PROPERTY, "1000000");
    FuzzRun run = FuzzRun.fromSystemProperties();
    assertThat(run.seed()).isEqualTo(-42L);
    assertThat(run.replayed()).isTrue();
    assertThat(run.count()).isEqualTo(1_000_000);
    assertThat(run.banner()).contains("seed=-42 (given)").contains("-Dupdraft.fuzz.seed=-42");
  }

  @Test
  void shouldSendTheSameInputsAgainForTheSameSeed() {
    List<String> ids = List.of("00000000-0000-4000-8000-000000000001");
    FuzzInputs a = new FuzzInputs(7, ids);
    FuzzInputs b = new FuzzInputs(7, ids);
    FuzzInputs other = new FuzzInputs(8, ids);
    int differ = 0;
    for (long i = 0; i < 50; i++) {
      assertThat(b.input(i).bytes()).isEqualTo(a.input(i).bytes());
      differ += java.util.Arrays.equals(a.input(i).bytes(), other.input(i).bytes()) ? 0 : 1;
    }
    assertThat(differ).as("inputs another seed changes, of 50").isGreaterThan(40);
  }

  @Test
  void shouldNameTheSeedTheIndexAndTheInputInAFailure() {
    FuzzRun run = new FuzzRun(123, false, 100_000);
    byte[] input = "GET /apps/x/manifest HTTP/1.1\r\nexpo-platform: \u0001ios\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    String f = run.failure(77_123, "bad-header ", "HTTP 500", input);
    assertThat(f).startsWith("seed 123 input 77123 [bad-header]: HTTP 500")
        .contains("'GET /apps/x/manifest HTTP/1.1\\r\\nexpo-platform: \\x01ios\\r\\n\\r\\n'")
        .contains("-Dupdraft.fuzz.seed=123 -Dupdraft.fuzz.count=100000");
    byte[] huge = new byte[FuzzRun.SHOWN_BYTES + 10];
    java.util.Arrays.fill(huge, (byte) 'a');
    assertThat(FuzzRun.shown(huge)).endsWith("(" + huge.length + " bytes, the first " + FuzzRun.SHOWN_BYTES + " shown)");
  }
}
