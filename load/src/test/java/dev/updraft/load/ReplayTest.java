package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replay of recorded device requests, open-model, inter-arrival times divided by the speed. */
class ReplayTest {
  @TempDir Path dir;

  @Test
  void replaysRecordedRequestsWithTheirHeadersAndSpacing() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      String ios = edge.latest.get("ios")[0];
      Path file = dir.resolve("recorded.jsonl");
      Files.write(file, List.of(
          "{\"t\":1000,\"path\":\"/apps/demo/manifest\",\"query\":\"\",\"headers\":{\"expo-platform\":\"ios\",\"expo-protocol-version\":\"1\",\"expo-runtime-version\":\"1.0.0\",\"expo-channel-name\":\"production\",\"eas-client-id\":\"AAAAAAAA-0000-4000-8000-000000000001\",\"accept\":\"multipart/mixed\"}}",
          "{\"t\":1400,\"path\":\"/apps/demo/manifest\",\"query\":\"platform=android&runtime-version=1.0.0\",\"headers\":{\"expo-platform\":\"android\",\"expo-protocol-version\":\"1\",\"expo-runtime-version\":\"1.0.0\"}}",
          "",
          "{\"t\":1600,\"path\":\"/apps/demo/manifest\",\"query\":\"\",\"headers\":{\"expo-platform\":\"ios\",\"expo-protocol-version\":\"1\",\"expo-runtime-version\":\"1.0.0\",\"expo-current-update-id\":\"" + ios + "\"}}",
          "{\"t\":2000,\"path\":\"/apps/demo/manifest\",\"query\":\"\",\"headers\":{\"expo-platform\":\"ios\",\"expo-protocol-version\":\"1\",\"expo-runtime-version\":\"1.0.0\"}}"));
      Runs.Outcome o = Runs.run(dir, "replay", "replay", file.toString(), "--speed", "2", "--target", edge.url(), "--max-lag", "10s");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      List<TestEdge.Seen> seen = edge.fleetSeen();
      assertThat(seen).hasSize(4);
      assertThat(seen.get(0).headers()).containsEntry("eas-client-id", "AAAAAAAA-0000-4000-8000-000000000001")
          .containsEntry("expo-channel-name", "production").containsEntry("accept", "multipart/mixed");
      assertThat(seen.get(1).query()).isEqualTo("platform=android&runtime-version=1.0.0");
      assertThat(seen.get(1).headers()).containsEntry("expo-platform", "android");
      assertThat(seen.get(2).headers()).containsEntry("expo-current-update-id", ios);
      // at speed 2 the recorded times 0, 400, 600, 1000 ms become 0, 200, 300, 500 ms after the start of the run:
      // a request never leaves before its time (2 ms allowed for clock granularity)
      long start = o.summary().path("run").path("start_epoch_ms").asLong();
      long[] intended = {0, 200, 300, 500};
      for (int i = 0; i < 4; i++) {
        assertThat(seen.get(i).epochMillis() - start).as("request %d", i).isGreaterThanOrEqualTo(intended[i] - 2);
      }
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("requests_sent").asLong()).isEqualTo(4);
      assertThat(t.path("ok").asLong()).isEqualTo(4);
      assertThat(t.path("manifests_served").asLong()).isEqualTo(3);
      assertThat(t.path("no_update_served").asLong()).isEqualTo(1);
      assertThat(o.summary().path("phases").get(0).path("window_s").get(1).asDouble()).isEqualTo(0.5);
    }
  }

  @Test
  void rejectsAFileThatIsNotRecordedRequests() throws Exception {
    Path file = dir.resolve("bad.jsonl");
    Files.write(file, List.of("{\"t\":1,\"path\":\"/x\"}", "{\"path\":\"/y\"}"));
    Runs.Outcome o = Runs.run(dir, "bad", "replay", file.toString(), "--speed", "1", "--target", "http://127.0.0.1:1");
    assertThat(o.exit()).isEqualTo(LoadCommand.EXIT_USAGE);
    assertThat(o.err()).contains("line 2").contains("\"t\"");
  }
}
