package dev.updraft.systemtests.lifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.systemtests.support.Http;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The publisher API as a test calls it: method, path, JSON body; the status and JSON answer. */
final class Api {
  static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final String token;

  Api(String base, String token) {
    this.base = base;
    this.token = token;
  }

  record Resp(int status, JsonNode json) {
    String code() {
      return json.path("error").path("code").asText();
    }

    String message() {
      return json.path("error").path("message").asText();
    }
  }

  Resp call(String method, String path, Object body) {
    try {
      String text = body == null ? null : body instanceof String ? (String) body : JSON.writeValueAsString(body);
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
          .header("authorization", "Bearer " + token)
          .method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
      if (text != null) {
        b.header("content-type", "application/json");
      }
      HttpResponse<String> r = Http.CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Resp(r.statusCode(), r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
