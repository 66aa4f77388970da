package dev.updraft.systemtests.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A publish whose event is several megabytes (a large public app config, once in each platform's manifest)
 * goes through the CLI, the event log, an edge's image and the history projection: Kafka's default 1 MiB
 * record limit refused it until the events topic was created with 8 MiB.
 */
@ExtendWith(RealInfrastructure.class)
class LargePublishIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int BLOB = 1_500_000;

  @TempDir Path work;

  @Test
  void aThreeMegabytePublishIsServedByTheEdgeAndListedInTheAudit(Infra infra) throws Exception {
    Path dist = copy(Fixtures.update1(), work.resolve("dist"));
    ObjectNode config = (ObjectNode) JSON.readTree(dist.resolve("expoConfig.json").toFile());
    config.withObject("/extra").put("blob", "b".repeat(BLOB));
    JSON.writeValue(dist.resolve("expoConfig.json").toFile(), config);

    try (Stack stack = Stack.start(infra, work.resolve("data"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", "big");
      JsonNode published = cli.json("publish", "--app", "big", "--branch", "main", "--runtime-version", "1.0.0", "--dist", dist.toString());
      String groupId = published.get("groupId").asText();

      String manifest = awaitManifest(stack);
      assertThat(manifest).as("the app config in the manifest's extra").contains("\"blob\":\"" + "b".repeat(BLOB) + "\"");

      Api api = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      JsonNode newest = null;
      while (System.nanoTime() < deadline) {
        JsonNode items = api.call("GET", "/v1/apps/big/audit?limit=5", null).json().get("items");
        newest = items.isEmpty() ? null : items.get(0);
        if (newest != null && "update.published".equals(newest.get("type").asText())) {
          break;
        }
        Thread.sleep(200);
      }
      assertThat(newest).as("the history projection stored the publish").isNotNull();
      assertThat(newest.get("type").asText()).isEqualTo("update.published");
      assertThat(newest.toString()).contains(groupId);
    }
  }

  /** The edge's answer to an iOS device on channel main once it serves the publish (its app config), for up to 60 s. */
  private static String awaitManifest(Stack stack) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    HttpResponse<String> r;
    do {
      r = Http.get(stack.edgeUrl() + "/apps/big/manifest", "expo-platform", "ios", "expo-runtime-version", "1.0.0",
          "expo-channel-name", "main", "expo-protocol-version", "1", "accept", "multipart/mixed");
      if (r.statusCode() == 200 && r.body().contains("\"blob\":\"b")) {
        return r.body();
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("the edge kept answering " + r.statusCode() + " without the publish: "
        + r.body().substring(0, Math.min(500, r.body().length())));
  }

  private static Path copy(Path from, Path to) throws Exception {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    return to;
  }
}
