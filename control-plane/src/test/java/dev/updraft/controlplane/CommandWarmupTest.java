package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandWarmupTest {
  @Test
  void zeroSkipsIt(@TempDir Path dir) throws Exception {
    CommandWarmup.Result r = CommandWarmup.run(new KeyStore(dir.resolve("keys"), null, true), Duration.ZERO);
    assertThat(r.rounds()).isZero();
    assertThat(r.stoppedBy()).isEqualTo("off");
  }

  @Test
  void runsRoundsWithinItsBoundsAndStoresNoKeyWithOrWithoutAMasterKey(@TempDir Path dir) throws Exception {
    byte[] master = Base64.getDecoder().decode(Fixtures.masterKey());
    for (KeyStore keys : new KeyStore[] {new KeyStore(dir.resolve("sealed"), master), new KeyStore(dir.resolve("plain"), null, true)}) {
      CommandWarmup.Result r = CommandWarmup.run(keys, Duration.ofSeconds(20));
      assertThat(r.rounds()).isBetween(1, CommandWarmup.MAX_ROUNDS);
      assertThat(r.stoppedBy()).isIn("flat", "budget", "rounds");
      if (r.stoppedBy().equals("flat")) {
        assertThat(r.rounds() % CommandWarmup.WINDOW).as("flat is decided at a window's end").isZero();
      }
      try (Stream<Path> files = Files.walk(keys.directory())) {
        assertThat(files.filter(Files::isRegularFile).toList()).as("nothing stored").isEmpty();
      }
    }
  }

  @Test
  void aSpentBudgetEndsItAfterTheRoundRunning(@TempDir Path dir) throws Exception {
    CommandWarmup.Result r = CommandWarmup.run(new KeyStore(dir.resolve("keys"), null, true), Duration.ofNanos(1));
    assertThat(r.stoppedBy()).isEqualTo("budget");
    assertThat(r.rounds()).isZero();
  }
}
