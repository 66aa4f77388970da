package dev.updraft.systemtests.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Edge processes of the static-stability tests ({@link EdgeWithoutKafkaIT}, {@link EdgeImageFromStorageIT}): an
 * {@code updraft edge} of its own JVM on a loopback port, and what they read from its {@code /readyz}.
 */
final class StaticEdges {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private StaticEdges() {}

  /** Starts {@code updraft edge} on {@code port} reading {@code bootstrap}/{@code prefix}, with {@code extra} flags; added to {@code edges}. */
  static ChildJvm start(Path dir, List<ChildJvm> edges, String id, int port, String bootstrap, String prefix, Map<String, String> env,
      String... extra) {
    List<String> args = new ArrayList<>(List.of("edge", "--kafka-bootstrap", bootstrap, "--topic-prefix", prefix,
        "--edge-port", Integer.toString(port), "--bind", "127.0.0.1", "--event-loops", "1", "--warmup-requests", "0", "--edge-id", id));
    args.addAll(List.of(extra));
    ChildJvm e = ChildJvm.start(dir.resolve(id + ".log"), env, args.toArray(String[]::new));
    edges.add(e);
    return e;
  }

  static String readyz(int port) {
    return "http://127.0.0.1:" + port + "/readyz";
  }

  static String metrics(int port) {
    return "http://127.0.0.1:" + port + "/metrics";
  }

  /** The {@code image.offsets} of a {@code /readyz} answer. */
  static Map<Integer, Long> offsets(JsonNode readyz) {
    Map<Integer, Long> out = new HashMap<>();
    readyz.path("image").path("offsets").properties().forEach(e -> out.put(Integer.parseInt(e.getKey()), e.getValue().asLong()));
    return out;
  }

  static long total(Map<Integer, Long> offsets) {
    return offsets.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The JSON answer at {@code url}, whatever its status. */
  static JsonNode get(String url) {
    try {
      HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build(),
          HttpResponse.BodyHandlers.ofByteArray());
      return CliRun.JSON.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The error code of a JSON error answer at {@code url}, or null when there is none (or nothing answers yet). */
  static String errorCode(String url) {
    try {
      return get(url).path("error").path("code").asText(null);
    } catch (UncheckedIOException e) {
      return null;
    }
  }
}
