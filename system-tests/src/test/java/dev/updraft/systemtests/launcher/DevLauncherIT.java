package dev.updraft.systemtests.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.embedded.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./updraft dev} as a user runs it: starts on a temporary data dir and free ports, turns ready,
 * stops on SIGTERM leaving no broker, database or port behind, and a second start on the same data dir
 * comes back with the same state; the app's private key is on disk only sealed, with the master key dev made
 * on its first start and kept.
 */
class DevLauncherIT {

  @TempDir Path tmp;

  @Test
  void startsReadyStopsCleanlyAndComesBackWithTheSameState() throws Exception {
    Path dataDir = tmp.resolve("data");
    try (DevProcess dev = new DevProcess(dataDir, "test-admin-token-0123456789abcdef")) {
      long coldMs = dev.startAndAwaitReady();
      assertThat(DevProcess.status(dev.controlUrl() + "/healthz")).isEqualTo(200);
      assertThat(DevProcess.status(dev.edgeUrl() + "/healthz")).isEqualTo(200);
      assertThat(dev.output()).contains("Updraft is ready").contains(dev.adminToken);

      StatePersistence.createStateToKeep(dev);
      // the app's private key is sealed with the master key dev made and keeps, owner-only, in the data dir
      Path masterKey = dataDir.resolve("master-key");
      assertThat(masterKey).exists();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(masterKey))).isEqualTo("rw-------");
      assertThat(Base64.getDecoder().decode(Files.readString(masterKey).trim())).hasSize(32);
      List<Path> keyFiles;
      try (Stream<Path> s = Files.walk(dataDir.resolve("keys"))) {
        keyFiles = s.filter(Files::isRegularFile).toList();
      }
      assertThat(keyFiles).hasSize(1);
      assertThat(Files.readString(keyFiles.get(0), StandardCharsets.ISO_8859_1)).as("no key in clear on disk").doesNotContain("PRIVATE KEY");

      // 143 = 128 + SIGTERM: the JVM's status after its shutdown hook (our clean stop) has run
      assertThat(dev.stop()).as("exit status after SIGTERM").isEqualTo(143);
      assertThat(dev.output()).contains("updraft dev: stopped");
      assertNothingLeftBehind(dev);

      long warmMs = dev.startAndAwaitReady();
      StatePersistence.assertStateKept(dev);
      assertThat(dev.stop()).isEqualTo(143);
      assertNothingLeftBehind(dev);
      System.out.printf("updraft dev start to ready: cold %d ms, warm %d ms%n", coldMs, warmMs);
    }
  }

  private static void assertNothingLeftBehind(DevProcess dev) throws IOException {
    assertThat(dev.alive()).isFalse();
    for (int port : dev.ports()) {
      assertThat(Ports.inUse(port)).as("port %d still in use after stop", port).isFalse();
    }
    assertThat(dev.dataDir.resolve("postgres/postmaster.pid")).as("postgres still running").doesNotExist();
    assertThat(processesMentioning(dev.dataDir.toString())).as("processes still using the data dir").isEmpty();
  }

  /** Command lines of live processes that name {@code text} (postgres children would). */
  private static List<String> processesMentioning(String text) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        Path cmdline = p.resolve("cmdline");
        if (!p.getFileName().toString().matches("\\d+") || !Files.isReadable(cmdline)) {
          continue;
        }
        try {
          String cmd = new String(Files.readAllBytes(cmdline)).replace('\0', ' ');
          if (cmd.contains(text)) {
            found.add(p.getFileName() + ": " + cmd);
          }
        } catch (IOException e) {
          // the process ended while we looked
        }
      }
    }
    return found;
  }
}
