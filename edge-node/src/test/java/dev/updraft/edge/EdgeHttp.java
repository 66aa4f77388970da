package dev.updraft.edge;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A plain JDK HTTP/1.1 client for the edge (no Vert.x on the client side). Thread-safe. */
final class EdgeHttp {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private final int port;

  EdgeHttp(int port) {
    this.port = port;
  }

  /** A response: status, headers (names lower-case, as the JDK reports them), exact body bytes. */
  record Response(int status, Map<String, List<String>> headers, byte[] body) {
    String header(String name) {
      List<String> v = headers.get(name.toLowerCase(java.util.Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }

    List<String> all(String name) {
      return headers.getOrDefault(name.toLowerCase(java.util.Locale.ROOT), List.of());
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    JsonNode json() {
      try {
        return FixtureManifests.JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + text(), e);
      }
    }

    String errorCode() {
      return json().path("error").path("code").asText(null);
    }

    @Override
    public String toString() {
      return status + " " + headers + " " + text();
    }
  }

  /**
   * Sends {@code request} (a whole HTTP/1.1 message, which should say {@code connection: close}) as bytes
   * on a socket, for targets the JDK client refuses to send, and reads the answer to the end.
   */
  Response raw(String request) {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      byte[] all = s.getInputStream().readAllBytes();
      String text = new String(all, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        throw new IllegalStateException("no complete answer to " + request + ": " + text);
      }
      String[] lines = text.substring(0, end).split("\r\n");
      Map<String, List<String>> headers = new java.util.TreeMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT), k -> new java.util.ArrayList<>())
            .add(lines[i].substring(colon + 1).trim());
      }
      return new Response(Integer.parseInt(lines[0].substring(9, 12)), headers,
          java.util.Arrays.copyOfRange(all, end + 4, all.length));
    } catch (IOException e) {
      throw new UncheckedIOException("raw request failed: " + request, e);
    }
  }

  Response get(String pathAndQuery, String... headers) {
    return send("GET", pathAndQuery, headers);
  }

  Response send(String method, String pathAndQuery, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(30))
        .method(method, method.equals("POST") || method.equals("PUT")
            ? HttpRequest.BodyPublishers.ofString("{}") : HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i + 1 < headers.length; i += 2) {
      if (headers[i + 1] != null) {
        b.header(headers[i], headers[i + 1]);
      }
    }
    try {
      HttpResponse<byte[]> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new Response(r.statusCode(), r.headers().map(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException("request failed: " + method + " " + pathAndQuery, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
