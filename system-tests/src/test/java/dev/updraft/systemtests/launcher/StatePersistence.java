package dev.updraft.systemtests.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.cli.Cli;
import dev.updraft.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/** What a user creates through the CLI before a restart, and checks after it. */
final class StatePersistence {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static String groupId;
  private static String iosUpdateId;

  private StatePersistence() {}

  static JsonNode cli(DevProcess dev, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] withJson = new String[args.length + 1];
    System.arraycopy(args, 0, withJson, 0, args.length);
    withJson[args.length] = "--json";
    int status =
        Cli.run(
            withJson,
            Map.of("UPDRAFT_SERVER", dev.controlUrl(), "UPDRAFT_TOKEN", dev.adminToken),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).as("updraft %s: %s", String.join(" ", args), err.toString(StandardCharsets.UTF_8)).isZero();
    return JSON.readTree(out.toString(StandardCharsets.UTF_8));
  }

  /** An app with a signing key and one published update. */
  static void createStateToKeep(DevProcess dev) throws Exception {
    cli(dev, "apps", "create", "kept", "--certificate", Fixtures.certificatePem().toString(), "--private-key", Fixtures.privateKeyPkcs1Pem().toString());
    JsonNode group =
        cli(dev, "publish", "--app", "kept", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString(), "--message", "before restart", "--no-progress");
    groupId = group.path("groupId").asText();
    for (JsonNode p : group.path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        iosUpdateId = p.path("updateId").asText();
      }
    }
    assertThat(groupId).isNotEmpty();
    assertThat(iosUpdateId).isNotEmpty();
  }

  /** The app, its key and its update are back, and the edge serves the update signed. */
  static void assertStateKept(DevProcess dev) throws Exception {
    JsonNode app = cli(dev, "apps", "show", "kept");
    assertThat(app.path("signing").path("keyId").asText()).isEqualTo("main");
    JsonNode updates = cli(dev, "updates", "--app", "kept");
    assertThat(updates.path("items").get(0).path("groupId").asText()).isEqualTo(groupId);
    assertThat(updates.path("items").get(0).path("message").asText()).isEqualTo("before restart");

    HttpResponse<String> manifest =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(dev.edgeUrl() + "/apps/kept/manifest"))
                    .timeout(Duration.ofSeconds(10))
                    .header("accept", "multipart/mixed,application/expo+json,application/json")
                    .header("expo-platform", "ios")
                    .header("expo-runtime-version", "1.0.0")
                    .header("expo-channel-name", "main")
                    .header("expo-protocol-version", "1")
                    .header("expo-expect-signature", "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"")
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(manifest.statusCode()).isEqualTo(200);
    assertThat(manifest.body()).contains("\"id\":\"" + iosUpdateId + "\"").contains("expo-signature: sig=");
  }
}
