package dev.updraft.load.run;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The push trigger: one HTTP request (method, URL, body, bearer token) that makes the server publish a
 * new update mid-run, for example a control-plane republish call. Runs on its own thread.
 */
public final class Trigger {
  /**
   * @param url nullable: no trigger
   * @param token nullable: no {@code authorization} header
   */
  public record Spec(String url, String method, String body, String token, String contentType) {
    public static Spec from(Settings s) {
      String url = s.string("trigger-url", null);
      String method = s.string("trigger-method", "POST").toUpperCase(java.util.Locale.ROOT);
      if (url != null && !url.startsWith("http://") && !url.startsWith("https://")) {
        throw new ConfigException("--trigger-url must be an http(s) URL: got '" + url + "'");
      }
      return new Spec(url, method, RunConfig.readBody(s.string("trigger-body", null)), s.string("trigger-token", null),
          s.string("trigger-content-type", "application/json"));
    }

    public boolean configured() {
      return url != null;
    }
  }

  /** What happened: status (or -1), the response body (cut), and how long the call took. */
  public record Result(int status, String body, double seconds, String error) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  private Trigger() {}

  static Result fire(Spec spec) {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(spec.url())).timeout(Duration.ofSeconds(30));
    HttpRequest.BodyPublisher pub =
        spec.body() == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(spec.body());
    b.method(spec.method(), pub);
    if (spec.body() != null) {
      b.header("content-type", spec.contentType());
    }
    if (spec.token() != null) {
      b.header("authorization", "Bearer " + spec.token());
    }
    long t0 = System.nanoTime();
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      String body = r.body();
      return new Result(r.statusCode(), body.length() > 500 ? body.substring(0, 500) : body, (System.nanoTime() - t0) / 1e9, null);
    } catch (IOException e) {
      return new Result(-1, "", (System.nanoTime() - t0) / 1e9, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "", (System.nanoTime() - t0) / 1e9, "interrupted");
    }
  }
}
