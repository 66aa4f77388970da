package dev.updraft.consoletests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.testing.openapi.OpenApiContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** The publisher API over HTTP, as a publisher's script would call it: uploads, publishes, reads. */
final class ApiClient {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private final String base;
  private final String token;

  ApiClient(String base, String token) {
    this.base = base;
    this.token = token;
  }

  record Resp(int status, JsonNode json) {
    String errorMessage() {
      return json.path("error").path("message").asText(null);
    }
  }

  ApiClient withToken(String other) {
    return new ApiClient(base, other);
  }

  Resp get(String path) {
    return send("GET", path, null, null, Map.of());
  }

  Resp post(String path, Object body) {
    return send("POST", path, bytes(body), "application/json", Map.of());
  }

  Resp post(String path, Object body, Map<String, String> headers) {
    return send("POST", path, bytes(body), "application/json", headers);
  }

  Resp put(String path, Object body) {
    return send("PUT", path, bytes(body), "application/json", Map.of());
  }

  Resp delete(String path) {
    return send("DELETE", path, null, null, Map.of());
  }

  /** The JSON of a 2xx answer; fails the test with the answer otherwise. */
  JsonNode ok(Resp r, String what) {
    if (r.status() / 100 != 2) {
      throw new AssertionError(what + " answered HTTP " + r.status() + ": " + r.json());
    }
    return r.json();
  }

  Resp send(String method, String path, byte[] body, String contentType, Map<String, String> headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
    b.header("Authorization", "Bearer " + token);
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::header);
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    try {
      HttpResponse<byte[]> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      OpenApiContract.shared().check(method, path, r.statusCode(), r.headers().firstValue("content-type").orElse(null), r.body());
      JsonNode json = r.body().length == 0 ? JSON.nullNode() : JSON.readTree(r.body());
      return new Resp(r.statusCode(), json);
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Publishes an {@code expo export} folder the way the CLI does: asks which files storage lacks,
   * uploads those, then posts the update group. {@code extra} fields (message, rolloutPercentage, ...) go
   * into the publish body.
   *
   * @return the published group
   */
  JsonNode publish(String app, Path dist, String branch, String runtimeVersion, Map<String, Object> extra) {
    JsonNode metadata = read(dist.resolve("metadata.json"));
    Set<String> paths = new LinkedHashSet<>();
    for (Map.Entry<String, JsonNode> p : metadata.get("fileMetadata").properties()) {
      paths.add(p.getValue().get("bundle").asText());
      for (JsonNode a : p.getValue().get("assets")) {
        paths.add(a.get("path").asText());
      }
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("branch", branch);
    body.put("runtimeVersion", runtimeVersion);
    body.set("metadata", metadata);
    ObjectNode files = body.putObject("files");
    ObjectNode missingQuery = JSON.createObjectNode();
    var shas = missingQuery.putArray("sha256");
    for (String p : paths) {
      byte[] bytes = bytesOf(dist.resolve(p));
      String sha = sha256(bytes);
      files.putObject(p).put("sha256", sha).put("size", bytes.length);
      shas.add(sha);
    }
    if (Files.exists(dist.resolve("expoConfig.json"))) {
      body.set("expoConfig", read(dist.resolve("expoConfig.json")));
    }
    extra.forEach((k, v) -> body.set(k, JSON.valueToTree(v)));

    Set<String> missing = new LinkedHashSet<>();
    ok(post("/v1/apps/" + app + "/assets/missing", missingQuery), "assets/missing").get("missing").forEach(m -> missing.add(m.asText()));
    for (String p : paths) {
      byte[] bytes = bytesOf(dist.resolve(p));
      String sha = sha256(bytes);
      if (missing.remove(sha)) {
        ok(send("PUT", "/v1/apps/" + app + "/assets/" + sha, bytes, "application/octet-stream", Map.of()), "upload of " + p);
      }
    }
    return ok(post("/v1/apps/" + app + "/updates", body, Map.of("Idempotency-Key", "it-" + sha256(bytes(body)).substring(0, 32))), "publish");
  }

  private static JsonNode read(Path p) {
    try {
      return JSON.readTree(Files.readAllBytes(p));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] bytesOf(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] bytes(Object body) {
    try {
      return body instanceof byte[] ? (byte[]) body : JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
