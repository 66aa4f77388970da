package dev.updraft.systemtests.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.openapi.OpenApiContract;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A small blocking client of the control plane's {@code /v1} API (HTTP/1.1, as a script would call it).
 * Every answer is checked against docs/api/openapi.yaml ({@link OpenApiContract}).
 */
public final class Api {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private Api() {}

  /** An answer; {@code status} -1 when the connection failed. */
  public record Resp(int status, byte[] body, HttpHeaders headers) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    public JsonNode json() {
      try {
        return CliRun.JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON (HTTP " + status + "): " + text(), e);
      }
    }

    public String errorCode() {
      return status < 0 ? null : json().path("error").path("code").asText(null);
    }

    public String header(String name) {
      return headers == null ? null : headers.firstValue(name).orElse(null);
    }

    @Override
    public String toString() {
      return "HTTP " + status + " " + text();
    }
  }

  /** {@code method url} with {@code token} (nullable), a body (nullable) and extra headers. */
  public static Resp send(String method, String url, String token, String body, Map<String, String> headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    headers.forEach(b::header);
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<byte[]> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      // every answer is held to docs/api/openapi.yaml: a status or shape it does not list fails the test
      OpenApiContract.shared().check(method, url, r.statusCode(), r.headers().firstValue("content-type").orElse(null), r.body());
      return new Resp(r.statusCode(), r.body(), r.headers());
    } catch (IOException e) {
      return new Resp(-1, String.valueOf(e).getBytes(StandardCharsets.UTF_8), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public static Resp post(String url, String token, String json) {
    return send("POST", url, token, json, Map.of());
  }

  public static Resp get(String url, String token) {
    return send("GET", url, token, null, Map.of());
  }
}
