package dev.updraft.controlplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.testing.openapi.OpenApiContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A small blocking HTTP client for the publisher API in tests. Every answer it receives is checked against
 * docs/api/openapi.yaml ({@link OpenApiContract}): a status or body shape the description does not list
 * fails the test that received it.
 */
final class Http {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private final String base;
  private final String token;

  Http(String base, String token) {
    this.base = base;
    this.token = token;
  }

  Http as(String otherToken) {
    return new Http(base, otherToken);
  }

  String base() {
    return base;
  }

  Resp get(String path) {
    return send("GET", path, null, null, Map.of());
  }

  Resp post(String path, Object json) {
    return send("POST", path, bytes(json), "application/json", Map.of());
  }

  Resp post(String path, Object json, Map<String, String> headers) {
    return send("POST", path, bytes(json), "application/json", headers);
  }

  Resp put(String path, Object json) {
    return send("PUT", path, bytes(json), "application/json", Map.of());
  }

  Resp patch(String path, Object json) {
    return send("PATCH", path, bytes(json), "application/json", Map.of());
  }

  Resp delete(String path) {
    return send("DELETE", path, null, null, Map.of());
  }

  Resp putBytes(String path, byte[] body, String contentType) {
    return send("PUT", path, body, contentType, Map.of());
  }

  Resp send(String method, String path, byte[] body, String contentType, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(path.startsWith("http") ? path : base + path)).timeout(Duration.ofSeconds(60));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::header);
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    try {
      HttpResponse<byte[]> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      OpenApiContract.shared().check(method, r.uri().toString(), r.statusCode(), r.headers().firstValue("content-type").orElse(null), r.body());
      return new Resp(r.statusCode(), r.body(), r.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static byte[] bytes(Object json) {
    if (json == null) {
      return null;
    }
    if (json instanceof String) {
      return ((String) json).getBytes(StandardCharsets.UTF_8);
    }
    try {
      return JSON.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  record Resp(int status, byte[] body, HttpHeaders headers) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON (status " + status + "): " + text(), e);
      }
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    String errorCode() {
      return json().path("error").path("code").asText(null);
    }

    String errorMessage() {
      return json().path("error").path("message").asText(null);
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    @Override
    public String toString() {
      return "HTTP " + status + " " + text();
    }
  }
}
