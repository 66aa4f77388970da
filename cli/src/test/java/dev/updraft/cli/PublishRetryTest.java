package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.updraft.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The publish protocol the CLI speaks, against a stand-in server that records requests: hashes computed
 * here from the fixture files, uploads of only what the server lacks, and a failed publish retried with
 * the same idempotency key.
 */
class PublishRetryTest {
  HttpServer server;
  final List<String> uploads = new CopyOnWriteArrayList<>();
  final List<String> publishKeys = new CopyOnWriteArrayList<>();
  final List<JsonNode> publishBodies = new CopyOnWriteArrayList<>();
  final AtomicInteger failuresLeft = new AtomicInteger();
  volatile int failStatus = 503;
  volatile String alreadyStored;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/apps/demo/assets/missing", x -> {
      JsonNode body = Api.JSON.readTree(x.getRequestBody());
      StringBuilder b = new StringBuilder("{\"missing\":[");
      String sep = "";
      for (JsonNode s : body.get("sha256")) {
        if (!s.asText().equals(alreadyStored)) {
          b.append(sep).append('"').append(s.asText()).append('"');
          sep = ",";
        }
      }
      reply(x, 200, b.append("]}").toString());
    });
    server.createContext("/v1/apps/demo/assets/", x -> {
      byte[] bytes = x.getRequestBody().readAllBytes();
      String sha = x.getRequestURI().getPath().substring("/v1/apps/demo/assets/".length());
      assertThat(sha256(bytes)).isEqualTo(sha);
      uploads.add(sha + " " + x.getRequestHeaders().getFirst("Content-Type"));
      reply(x, 201, "{\"sha256\":\"" + sha + "\",\"stored\":true}");
    });
    server.createContext("/v1/apps/demo/updates", x -> {
      publishKeys.add(x.getRequestHeaders().getFirst("Idempotency-Key"));
      publishBodies.add(Api.JSON.readTree(x.getRequestBody()));
      if (failuresLeft.getAndDecrement() > 0) {
        reply(x, failStatus, "{\"error\":{\"code\":\"fenced\",\"message\":\"this control plane instance was replaced by a newer one\"}}");
        return;
      }
      reply(x, 201, "{\"groupId\":\"g1\",\"branch\":\"production\",\"runtimeVersion\":\"1.0.0\",\"rollout\":null,\"replayed\":false,"
          + "\"platforms\":[{\"platform\":\"ios\",\"updateId\":\"u1\",\"createdAt\":\"2026-11-30T10:00:00.000Z\",\"signed\":true}]}");
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  static void reply(HttpExchange x, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(status, b.length);
    x.getResponseBody().write(b);
    x.close();
  }

  static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  int publish(String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "publish", "--app", "demo", "--branch", "production", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString(),
        "--server", "http://127.0.0.1:" + server.getAddress().getPort(), "--token", "t"));
    args.addAll(List.of(extra));
    return Cli.run(args.toArray(new String[0]), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), ms -> {}, false);
  }

  @Test
  void uploadsWhatIsMissingAndRetriesAFailedPublishWithTheSameKey() throws Exception {
    byte[] favicon = Files.readAllBytes(Fixtures.update1().resolve("assets/d9f444efbdfbe7931aa93beada07318a"));
    alreadyStored = sha256(favicon);
    failuresLeft.set(2);
    assertThat(publish("--message", "hello")).as(err.toString(StandardCharsets.UTF_8)).isZero();

    assertThat(publishKeys).hasSize(3);
    assertThat(publishKeys.get(0)).startsWith("cli-");
    assertThat(publishKeys).containsOnly(publishKeys.get(0));
    assertThat(publishBodies).allSatisfy(b -> assertThat(b.get("idempotencyKey").asText()).isEqualTo(publishKeys.get(0)));

    Path dir = Fixtures.update1();
    String[] paths = {
      "_expo/static/js/android/index-c97f8560ea2634313027b02600fef491.hbc",
      "_expo/static/js/ios/index-a15905a51887436352fc107e5a9c5ef6.hbc",
      "assets/d9f444efbdfbe7931aa93beada07318a",
      "assets/97dae5a0e62ad8551d8a31897b425e63"
    };
    JsonNode body = publishBodies.get(0);
    assertThat(body.get("files").size()).isEqualTo(4);
    for (String p : paths) {
      byte[] b = Files.readAllBytes(dir.resolve(p));
      assertThat(body.get("files").get(p).get("sha256").asText()).isEqualTo(sha256(b));
      assertThat(body.get("files").get(p).get("size").asLong()).isEqualTo(b.length);
    }
    assertThat(body.get("metadata")).isEqualTo(Api.JSON.readTree(Files.readAllBytes(dir.resolve("metadata.json"))));
    assertThat(body.get("expoConfig").get("slug").asText()).isEqualTo("expoapp");
    assertThat(body.get("message").asText()).isEqualTo("hello");
    assertThat(body.has("platforms")).isFalse();
    // the favicon was stored already: three uploads, bundles as JavaScript, the PNG as an image
    assertThat(uploads).containsExactlyInAnyOrder(
        sha256(Files.readAllBytes(dir.resolve(paths[0]))) + " application/javascript",
        sha256(Files.readAllBytes(dir.resolve(paths[1]))) + " application/javascript",
        sha256(Files.readAllBytes(dir.resolve(paths[3]))) + " image/png");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("published group g1");
  }

  @Test
  void narrowsToOnePlatform() throws Exception {
    assertThat(publish("--platform", "ios", "--json")).isZero();
    JsonNode body = publishBodies.get(0);
    assertThat(body.get("platforms").toString()).isEqualTo("[\"ios\"]");
    assertThat(body.get("files").size()).isEqualTo(3);
    assertThat(uploads).hasSize(3);
    assertThat(Api.JSON.readTree(out.toByteArray()).get("groupId").asText()).isEqualTo("g1");
  }

  @Test
  void givesUpOnARefusalAtOnceWithTheServersMessage() {
    failStatus = 409;
    failuresLeft.set(1);
    assertThat(publish()).isEqualTo(1);
    assertThat(publishKeys).hasSize(1);
    assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo("error: this control plane instance was replaced by a newer one [fenced]");
  }

  @Test
  void stopsRetryingAfterABoundedNumberOfAttempts() {
    failuresLeft.set(100);
    assertThat(publish()).isEqualTo(1);
    assertThat(publishKeys).hasSize(5);
  }

  @Test
  void acceptsNoProgressWhenNotOnATerminal() {
    assertThat(publish("--no-progress")).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(publishKeys).hasSize(1);
  }

  int publishWithoutRuntimeVersion(Path dist, String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "publish", "--app", "demo", "--branch", "production", "--dist", dist.toString(),
        "--server", "http://127.0.0.1:" + server.getAddress().getPort(), "--token", "t"));
    args.addAll(List.of(extra));
    return Cli.run(args.toArray(new String[0]), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), ms -> {}, false);
  }

  @Test
  void takesTheRuntimeVersionFromTheExportsExpoConfig() throws Exception {
    assertThat(publishWithoutRuntimeVersion(Fixtures.update1())).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(publishBodies.get(0).get("runtimeVersion").asText()).isEqualTo("1.0.0");
  }

  @Test
  void publishesOneGroupPerRuntimeVersionWhenThePlatformsRuntimeVersionsDiffer(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path dist = dir.resolve("dist");
    try (var files = Files.walk(Fixtures.update1())) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path t = dist.resolve(Fixtures.update1().relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(t);
        } else {
          Files.copy(f, t);
        }
      }
    }
    Files.writeString(dist.resolve("expoConfig.json"),
        "{\"version\":\"1.2.0\",\"runtimeVersion\":{\"policy\":\"nativeVersion\"},\"ios\":{\"buildNumber\":\"3\"},\"android\":{\"versionCode\":7}}");
    assertThat(publishWithoutRuntimeVersion(dist)).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(publishBodies).hasSize(2);
    assertThat(publishBodies.get(0).get("runtimeVersion").asText()).isEqualTo("1.2.0(7)");
    assertThat(publishBodies.get(0).get("platforms").toString()).isEqualTo("[\"android\"]");
    assertThat(publishBodies.get(1).get("runtimeVersion").asText()).isEqualTo("1.2.0(3)");
    assertThat(publishBodies.get(1).get("platforms").toString()).isEqualTo("[\"ios\"]");
    assertThat(publishBodies.get(0).get("files").fieldNames()).toIterable().allMatch(f -> !f.contains("/ios/"));
    assertThat(publishKeys).as("one key per group").doesNotHaveDuplicates().hasSize(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("publishing android for runtime version 1.2.0(7)", "publishing ios for runtime version 1.2.0(3)");
    // one platform at a time is one runtime version
    err.reset();
    publishBodies.clear();
    assertThat(publishWithoutRuntimeVersion(dist, "--platform", "android")).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(publishBodies.get(0).get("runtimeVersion").asText()).isEqualTo("1.2.0(7)");
    assertThat(publishBodies.get(0).get("platforms").toString()).isEqualTo("[\"android\"]");
  }

  @Test
  void refusesAFingerprintRuntimeVersionBeforeUploadingWhenTheProjectHasNoExpoUpdates(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path dist = dir.resolve("dist");
    Files.createDirectories(dist);
    try (var files = Files.walk(Fixtures.update1())) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path t = dist.resolve(Fixtures.update1().relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(t);
        } else if (!Files.exists(t)) {
          Files.copy(f, t);
        }
      }
    }
    Files.writeString(dist.resolve("expoConfig.json"), "{\"version\":\"1.0.0\",\"runtimeVersion\":{\"policy\":\"fingerprint\"}}");
    Path project = Files.createDirectories(dir.resolve("app"));
    assertThat(publishWithoutRuntimeVersion(dist, "--project-dir", project.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("the project " + project.toAbsolutePath() + " has no expo-updates installed");
    assertThat(uploads).as("nothing uploaded").isEmpty();
    assertThat(publishKeys).isEmpty();
  }
}
