package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --device-log FILE}: the generator's own log of what each device did, checked against what the server saw. */
class DeviceLogTest {
  @TempDir Path dir;

  @Test
  void theLogHoldsEveryCheckInAndDownloadTheServerSaw() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      edge.answerPatches = true;
      Path log = dir.resolve("logs").resolve("devices.tsv");
      Runs.Outcome o = Runs.run(dir, "devlog", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--device-log", log.toString());
      assertThat(o.exit()).as(o.out() + o.err()).isEqualTo(0);
      assertThat(o.summary().path("configuration").path("features_requested").path("device_log").asText()).isEqualTo(log.toString());
      List<String> lines = Files.readAllLines(log);
      assertThat(lines.get(0)).isEqualTo("client_id\tplatform\tupdate_id\tstage\tfirst_epoch_ms");
      List<String[]> rows = lines.subList(1, lines.size()).stream().map(l -> l.split("\t")).collect(Collectors.toList());
      assertThat(rows).allSatisfy(r -> {
        assertThat(r).hasSize(5);
        assertThat(r[0]).isEqualTo(r[0].toLowerCase(Locale.ROOT));
        assertThat(r[1]).isIn("ios", "android");
      });

      // what the edge saw: check-ins with a client id (the device ran its current update), patch requests (all answered 226)
      Set<String> launchedSeen = new HashSet<>();
      Set<String> patchesSeen = new HashSet<>();
      for (TestEdge.Seen s : edge.seen) {
        String client = s.headers().get("eas-client-id");
        if (client == null) {
          continue;
        }
        String who = client.toLowerCase(Locale.ROOT) + " " + s.headers().get("expo-platform") + " ";
        if (s.path().startsWith("/assets/")) {
          patchesSeen.add(who + s.headers().get("expo-requested-update-id"));
        } else if (s.path().endsWith("/manifest")) {
          launchedSeen.add(who + s.headers().get("expo-current-update-id"));
        }
      }
      assertThat(patchesSeen).isNotEmpty();
      assertThat(stage(rows, "launched")).isEqualTo(launchedSeen);
      assertThat(stage(rows, "patch")).isEqualTo(patchesSeen);
      assertThat(stage(rows, "full")).isEmpty();
      assertThat(stage(rows, "served")).as("a device downloads only what it was served").containsAll(patchesSeen);
      assertThat(stage(rows, "served").stream().map(x -> x.split(" ")[0]))
          .as("discovery's device is in the log").contains(TestEdge.DISCOVERY_ID);
      assertThat(rows.stream().map(r -> r[0] + " " + r[2] + " " + r[3]).distinct().count()).as("one line per device, update and stage")
          .isEqualTo(rows.size());
    }
  }

  @Test
  void withoutTheFlagNoLogIsWritten() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "nolog", "--target", edge.url(), "--profile", "constant", "--rate", "20", "--duration", "1s",
          "--warmup", "0");
      assertThat(o.exit()).isEqualTo(0);
      assertThat(o.summary().path("configuration").path("features_requested").has("device_log")).isFalse();
      try (var files = Files.list(dir)) {
        assertThat(files.map(p -> p.getFileName().toString())).allMatch(n -> n.startsWith("nolog-"));
      }
    }
  }

  private static Set<String> stage(List<String[]> rows, String stage) {
    return rows.stream().filter(r -> r[3].equals(stage)).map(r -> r[0] + " " + r[1] + " " + r[2]).collect(Collectors.toSet());
  }
}
