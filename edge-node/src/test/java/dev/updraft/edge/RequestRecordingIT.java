package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.events.EventPayload;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code --record-requests}: JSON lines with only what replay needs, never credentials. */
@ExtendWith(RealInfrastructure.class)
class RequestRecordingIT {

  @Test
  void recordsDeviceRequestsAsJsonLinesWithOnlyTheHeadersResolutionReads(Infra infra, @TempDir Path dir) throws Exception {
    Path file = dir.resolve("requests.jsonl");
    Vertx vertx = Edges.vertx();
    long before = System.currentTimeMillis();
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      log.publish("rec", new EventPayload.AppCreated("Recorded"));
      log.publish("rec", new EventPayload.UpdatePublished(
          FixtureManifests.group("production", "1.0.0", Fixtures.update1(), Instant.now(), null, null)));
      EdgeNode edge = Edges.startReady(vertx, log, "rec-edge", "record-requests", file.toString(),
          "record-sample-rate", "1");
      try {
        EdgeHttp http = new EdgeHttp(edge.port());
        http.get("/apps/rec/manifest", "Accept", "multipart/mixed", "Expo-Platform", "ios", "expo-runtime-version", "1.0.0",
            "expo-channel-name", "production", "EAS-Client-ID", "ABC", "Authorization", "Bearer secret",
            "Cookie", "s=1", "User-Agent", "test", "X-Other", "x");
        http.get("/manifest?app=rec&platform=android&runtime-version=1.0.0&channel-name=production");
        http.get("/healthz"); // not a device request: not recorded
      } finally {
        Edges.await(edge.close()); // the writer flushes on close
      }
    } finally {
      Edges.await(vertx.close());
    }
    long after = System.currentTimeMillis();

    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(2);
    JsonNode first = FixtureManifests.JSON.readTree(lines.get(0));
    assertThat(first.path("t").asLong()).isBetween(before, after);
    assertThat(first.path("path").asText()).isEqualTo("/apps/rec/manifest");
    assertThat(first.path("query").asText()).isEmpty();
    List<String> names = new ArrayList<>();
    Iterator<String> it = first.path("headers").fieldNames();
    it.forEachRemaining(names::add);
    // the JDK client sends headers in its own order: the file keeps the order received, the set is what matters here
    assertThat(names).containsExactlyInAnyOrder("accept", "expo-platform", "expo-runtime-version", "expo-channel-name",
        "eas-client-id");
    assertThat(first.path("headers").path("eas-client-id").asText()).isEqualTo("ABC");
    assertThat(lines.get(0)).doesNotContainIgnoringCase("secret").doesNotContainIgnoringCase("cookie");
    JsonNode second = FixtureManifests.JSON.readTree(lines.get(1));
    assertThat(second.path("path").asText()).isEqualTo("/manifest");
    assertThat(second.path("query").asText()).isEqualTo("app=rec&platform=android&runtime-version=1.0.0&channel-name=production");
  }
}
