package dev.updraft.systemtests.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updraft apps delete}: devices get 404 {@code unknown-app} from a live edge fed by real Kafka, the
 * app's tokens get 401, its key store files are gone; the same app id created again starts empty on the edge
 * and on the control plane (none of the old groups served or listed, no keys, the old token still refused).
 */
@ExtendWith(RealInfrastructure.class)
class AppDeleteIT {
  static final String APP = "doomed";

  @TempDir Path data;

  @Test
  void aDeletedAppIsGoneEverywhereAndComesBackEmpty(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, data)) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Api admin = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP, "--certificate", Fixtures.certificatePem().toString(), "--private-key", Fixtures.privateKeyPkcs1Pem().toString());
      String token = cli.json("tokens", "create", "--app", APP, "--role", "publish", "--label", "ci").get("token").asText();
      Api publisher = new Api(stack.controlUrl(), token);
      assertThat(publisher.call("GET", "/v1/apps/" + APP, null).status()).isEqualTo(200);
      JsonNode published = cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
      String groupId = published.get("groupId").asText();
      String servedId = updateIdOf(published, "ios");
      HttpResponse<String> before = awaitManifest(stack, true, r -> r.statusCode() == 200);
      assertThat(before.body()).contains(servedId);
      assertThat(before.body().toLowerCase(java.util.Locale.ROOT)).as("signed with the app's key").contains("expo-signature");
      Path keys = data.resolve("keys").resolve(APP);
      assertThat(files(keys)).as("the key store holds the app's key").isNotEmpty();

      CliRunner.Result deleted = cli.run("apps", "delete", APP, "--confirm", APP);
      assertThat(deleted.status()).as(deleted.err()).isZero();

      HttpResponse<String> gone = awaitManifest(stack, false, r -> r.statusCode() == 404);
      assertThat(gone.body()).contains("unknown-app");
      Api.Resp refused = publisher.call("GET", "/v1/apps/" + APP, null);
      assertThat(refused.status()).as("the app's token stops working").isEqualTo(401);
      assertThat(publisher.call("GET", "/v1/apps/" + APP + "/updates", null).status()).isEqualTo(401);
      assertThat(admin.call("GET", "/v1/apps/" + APP, null).status()).isEqualTo(404);
      assertThat(files(keys)).as("its key files are destroyed").isEmpty();
      RetentionIT.awaitEdgeGroups(stack, 0);

      // the same id again: nothing of the old app on the control plane or the edge
      cli.json("apps", "create", APP);
      JsonNode app = admin.call("GET", "/v1/apps/" + APP, null).json();
      assertThat(app.path("keys")).as("no key of the old app").isEmpty();
      assertThat(admin.call("GET", "/v1/apps/" + APP + "/updates", null).json().get("items")).isEmpty();
      assertThat(admin.call("GET", "/v1/apps/" + APP + "/branches", null).json().get("items")).isEmpty();
      assertThat(admin.call("GET", "/v1/apps/" + APP + "/updates/" + groupId, null).status()).isEqualTo(404);
      assertThat(publisher.call("GET", "/v1/apps/" + APP, null).status()).as("the old token stays refused").isEqualTo(401);
      HttpResponse<String> empty = awaitManifest(stack, false, r -> !r.body().contains("unknown-app"));
      assertThat(empty.body()).doesNotContain(servedId).doesNotContain(groupId);
      HttpResponse<String> unsigned = awaitManifest(stack, true, r -> true);
      assertThat(unsigned.statusCode()).as("the edge holds no key of the old app: " + unsigned.body()).isEqualTo(400);
      assertThat(unsigned.body()).contains("has no code-signing key");
      RetentionIT.awaitEdgeGroups(stack, 0);

      // and it works as a new app: a publish is served
      JsonNode again = cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString());
      String newId = updateIdOf(again, "ios");
      HttpResponse<String> served = awaitManifest(stack, false, r -> r.body().contains(newId));
      assertThat(served.body()).doesNotContain(servedId);
      RetentionIT.awaitEdgeGroups(stack, 1);
    }
  }

  private static String updateIdOf(JsonNode published, String platform) {
    for (JsonNode p : published.get("platforms")) {
      if (p.path("platform").asText().equals(platform)) {
        return p.path("updateId").asText();
      }
    }
    throw new AssertionError("no " + platform + " update in " + published);
  }

  /**
   * Polls the edge's manifest answer to an iOS device on channel main (asking for a signature when
   * {@code signed}) until {@code done}, for up to 60 s.
   */
  private static HttpResponse<String> awaitManifest(Stack stack, boolean signed, Predicate<HttpResponse<String>> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String url = stack.edgeUrl() + "/apps/" + APP + "/manifest";
    HttpResponse<String> r;
    do {
      r = signed
          ? Http.get(url, "expo-platform", "ios", "expo-runtime-version", "1.0.0", "expo-channel-name", "main", "expo-protocol-version", "1",
              "accept", "multipart/mixed", "expo-expect-signature", "sig, keyid=\"main\"")
          : Http.get(url, "expo-platform", "ios", "expo-runtime-version", "1.0.0", "expo-channel-name", "main", "expo-protocol-version", "1",
              "accept", "multipart/mixed");
      if (done.test(r)) {
        return r;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("the edge kept answering " + r.statusCode() + ": " + r.body());
  }

  private static List<Path> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }
}
