package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Source maps are never served to devices (issue 42): with the launch assets on the edge ({@code --edge-public-url}),
 * an export published with its maps has its bundle on the edge's asset route and in the manifest, while the map's
 * SHA-256 is 404 there and named nowhere a device sees.
 */
@ExtendWith(RealInfrastructure.class)
class SourceMapsOnTheEdgeIT {
  static final String APP = "maps-edge";

  @Test
  void theEdgeServesTheBundleButNeverItsSourceMap(Infra infra, @TempDir Path dir) throws Exception {
    int edgePort = Ports.freePort();
    try (Stack stack = Stack.start(infra, dir.resolve("data"), Map.of("edge-public-url", "http://127.0.0.1:" + edgePort))) {
      EdgeNode edge = stack.startEdge("edge-maps", Map.of("edge-port", Integer.toString(edgePort)));
      try {
        CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
        cli.json("apps", "create", APP);
        Path export = Fixtures.sourceMapsExport(dir.resolve("dist"));
        JsonNode group = cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", export.toString(),
            "--no-progress");
        JsonNode meta = BundlePatchIT.JSON.readTree(Files.readAllBytes(export.resolve("metadata.json")));
        String bundle = meta.get("fileMetadata").get("android").get("bundle").asText();
        String launchSha = sha256(export.resolve(bundle));
        String mapSha = sha256(export.resolve(bundle + ".map"));
        String base = "http://127.0.0.1:" + edgePort + "/apps/" + APP + "/assets/";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        int launch = status(http, base + launchSha);
        while (launch != 200 && System.nanoTime() < deadline) {
          Thread.sleep(100);
          launch = status(http, base + launchSha);
        }
        assertThat(launch).as("the edge serves the launch asset").isEqualTo(200);
        HttpResponse<String> map = http.send(HttpRequest.newBuilder(URI.create(base + mapSha)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(map.statusCode()).as("the map on the edge's asset route").isEqualTo(404);
        assertThat(map.body()).doesNotContain("\"version\":3").contains("not-found");
        // the group's manifests (the bodies devices get) name the bundle on the edge, and not the map
        HttpResponse<String> detail = http.send(HttpRequest.newBuilder(URI.create(stack.controlUrl() + "/v1/apps/" + APP + "/updates/"
            + group.get("groupId").asText())).header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(detail.statusCode()).isEqualTo(200);
        assertThat(detail.body()).contains("/apps/" + APP + "/assets/" + launchSha).doesNotContain(mapSha);
      } finally {
        Stack.await(edge.close());
      }
    }
  }

  private static int status(HttpClient http, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static String sha256(Path p) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
  }
}
