package dev.updraft.systemtests.reliability;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reading one sample out of a Prometheus text exposition. */
public final class Metrics {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Metrics() {}

  /**
   * The value of the sample written exactly as {@code series} (name and labels as exposed, e.g.
   * {@code updraft_edge_checkins_dropped_total{reason="queue-full"}}), 0 when it is absent.
   */
  public static double value(String text, String series) {
    for (String line : text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0]);
      }
    }
    return 0;
  }

  /** {@code GET url} as text (a scrape). */
  public static String scrape(String url) {
    try {
      HttpResponse<String> r =
          HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new AssertionError("GET " + url + " answered " + r.statusCode());
      }
      return r.body();
    } catch (IOException e) {
      throw new AssertionError("GET " + url + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
