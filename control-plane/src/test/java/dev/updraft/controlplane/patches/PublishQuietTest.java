package dev.updraft.controlplane.patches;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PublishQuietTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /** A clock the test moves; starts at a negative value, as System.nanoTime may. */
  private long now = -5_000 * MS;
  private final PublishQuiet quiet = new PublishQuiet(() -> now);

  @Test
  void aJobStartsAtOnceWhenNothingWasPublished() {
    assertThat(quiet.waitNanos()).isZero();
  }

  @Test
  void aJobWaitsUntilASecondAfterTheLastPublish() {
    quiet.published();
    now += 200 * MS;
    assertThat(quiet.waitNanos()).isEqualTo(800 * MS);
    now += 500 * MS;
    quiet.published(); // the burst goes on
    now += 300 * MS;
    assertThat(quiet.waitNanos()).isEqualTo(700 * MS);
    now += 700 * MS;
    assertThat(quiet.waitNanos()).isZero();
  }

  @Test
  void publishesThatNeverPauseHoldJobsBackForAMinuteAtMostThenOneStartsAndTheNextWaitsAgain() {
    quiet.published();
    now += 100 * MS;
    assertThat(quiet.waitNanos()).isEqualTo(900 * MS); // waiting since here
    for (int i = 0; i < 119; i++) { // a publish every half second for 59.5 s
      now += 500 * MS;
      quiet.published();
      assertThat(quiet.waitNanos()).as("after %d ms", (i + 1) * 500).isEqualTo(Math.min(1_000, 60_000 - (i + 1) * 500L) * MS);
    }
    now += 500 * MS; // the jobs have waited 60 s
    assertThat(quiet.waitNanos()).isZero();
    quiet.published();
    now += 100 * MS;
    assertThat(quiet.waitNanos()).as("the next job waits again").isEqualTo(900 * MS);
  }
}
