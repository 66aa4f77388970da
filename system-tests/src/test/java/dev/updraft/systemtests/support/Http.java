package dev.updraft.systemtests.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Small blocking HTTP helpers for system tests. */
public final class Http {
  public static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private Http() {}

  public static HttpResponse<String> get(String url, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  public static HttpResponse<byte[]> getBytes(String url, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }
}
