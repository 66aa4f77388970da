package dev.updraft.controlplane.patches;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PatchRetryTest {
  @Test
  void aFailedJobWaitsOneMinuteThenTwiceAsLongUpToAnHour() {
    IOException broken = new IOException("storage answered 500");
    assertThat(PatchWorker.retryAfter(null, broken)).isEqualTo(Duration.ofMinutes(1));
    assertThat(PatchWorker.retryAfter(Duration.ofMinutes(1), broken)).isEqualTo(Duration.ofMinutes(2));
    assertThat(PatchWorker.retryAfter(Duration.ofMinutes(32), broken)).isEqualTo(Duration.ofHours(1));
    assertThat(PatchWorker.retryAfter(Duration.ofHours(1), broken)).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aJobWhoseFileIsNotStoredWaitsTheLongestAtOnceWrappedOrNot() {
    NoSuchFileException gone = new NoSuchFileException("app demo sha256=00");
    assertThat(PatchWorker.retryAfter(null, gone)).isEqualTo(Duration.ofHours(1));
    assertThat(PatchWorker.retryAfter(null, new UncheckedIOException(gone))).isEqualTo(Duration.ofHours(1));
    assertThat(PatchWorker.retryAfter(Duration.ofMinutes(2), new RuntimeException("job", new UncheckedIOException(gone))))
        .isEqualTo(Duration.ofHours(1));
  }
}
