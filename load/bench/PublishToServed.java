import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Publish to served, timed from one JVM (docs/benchmarks/edge.md, load/bench/ten-thousand-apps.sh): PUBLISHES republishes
 * of an app ({@code POST /v1/apps/APP/rollbacks}, alternating between the groups given), each timed from the moment its
 * request is sent until the edge serves the new update's id to an iOS device, polled back to back over one kept-alive
 * connection. Prints one line per republish: the ms until served, then the ms until the publish API answered.
 *
 * <p>Before the first republish it sends WARMUP [2000] manifest requests to the edge, unmeasured, so that its own HTTP
 * client is compiled (a poll costs tens of microseconds, not the milliseconds an interpreted client or a curl process
 * takes); it republishes nothing unmeasured, so a cold control plane shows in the figures. Run with a JDK 17+:
 *
 * <pre>
 *   java load/bench/PublishToServed.java --server URL --token T --edge URL --app demo --groups G1,G2 --publishes 30
 * </pre>
 */
public final class PublishToServed {
  private static final Duration SERVED_WITHIN = Duration.ofSeconds(30);

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>(Map.of("publishes", "30", "warmup", "2000", "pause-ms", "200",
        "runtime-version", "1.0.0", "channel", "production", "branch", "production"));
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    for (String required : new String[] {"server", "token", "edge", "app", "groups"}) {
      if (!a.containsKey(required)) {
        throw new IllegalArgumentException("--" + required + " is required");
      }
    }
    String[] groups = a.get("groups").split(",");
    int publishes = Integer.parseInt(a.get("publishes"));
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest manifest = HttpRequest.newBuilder(URI.create(a.get("edge") + "/apps/" + a.get("app") + "/manifest"))
        .header("accept", "multipart/mixed").header("expo-platform", "ios").header("expo-protocol-version", "1")
        .header("expo-runtime-version", a.get("runtime-version")).header("expo-channel-name", a.get("channel"))
        .timeout(Duration.ofSeconds(5)).GET().build();
    int warmup = Integer.parseInt(a.get("warmup"));
    for (int i = 0; i < warmup; i++) {
      servedId(http, manifest);
    }
    long pauseMs = Long.parseLong(a.get("pause-ms"));
    for (int i = 0; i < publishes; i++) {
      String group = groups[i % groups.length];
      String before = servedId(http, manifest);
      HttpRequest publish = HttpRequest.newBuilder(URI.create(a.get("server") + "/v1/apps/" + a.get("app") + "/rollbacks"))
          .header("authorization", "Bearer " + a.get("token")).header("content-type", "application/json")
          .timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString("{\"branch\":\"" + a.get("branch") + "\",\"runtimeVersion\":\""
              + a.get("runtime-version") + "\",\"toGroupId\":\"" + group + "\"}"))
          .build();
      long t0 = System.nanoTime();
      HttpResponse<String> answer = http.send(publish, HttpResponse.BodyHandlers.ofString());
      long answered = System.nanoTime();
      if (answer.statusCode() / 100 != 2) {
        throw new IllegalStateException("republish " + (i + 1) + " of group " + group + " answered " + answer.statusCode() + ": " + answer.body());
      }
      long deadline = t0 + SERVED_WITHIN.toNanos();
      String now = before;
      while (now.equals(before)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("republish " + (i + 1) + " of group " + group + " not served within " + SERVED_WITHIN
              + ": the edge still serves " + before);
        }
        now = servedId(http, manifest);
      }
      long served = System.nanoTime();
      System.out.printf("%.1f %.1f%n", (served - t0) / 1e6, (answered - t0) / 1e6);
      System.out.flush();
      Thread.sleep(pauseMs);
    }
  }

  /** The update id in the edge's answer now ("" when it serves none). */
  private static String servedId(HttpClient http, HttpRequest manifest) throws Exception {
    String body = http.send(manifest, HttpResponse.BodyHandlers.ofString()).body();
    int at = body.indexOf("\"id\":\"");
    return at < 0 ? "" : body.substring(at + 6, body.indexOf('"', at + 6));
  }
}
