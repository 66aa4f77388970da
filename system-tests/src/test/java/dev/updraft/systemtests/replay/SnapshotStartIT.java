package dev.updraft.systemtests.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.AppSnapshot;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.SnapshotTopic;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * State grows with what is live: after 121 republishes on one branch an edge holds a handful of groups (HistoryIT does 300),
 * snapshots are written, and a fresh edge and a fresh control plane started after them read the snapshot
 * plus a tail of events written after it (at least one, exactly as many as the log holds past the
 * snapshot's sequence) and answer exactly like ones that read the log from offset 0.
 */
@ExtendWith(RealInfrastructure.class)
class SnapshotStartIT {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Events of an app after which the control plane writes its snapshot ({@code --snapshot-interval-events}). */
  static final int EVERY = 40;
  @TempDir Path work;

  @Test
  void freshServicesStartFromSnapshotsAndAnswerLikeAReplayFromZero(Infra infra) throws Exception {
    Path data = work.resolve("data");
    try (Stack stack = Stack.start(infra, data, Map.of("snapshot-interval-events", Integer.toString(EVERY)))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", "live", "--certificate", Fixtures.certificatePem().toString(), "--private-key",
          Fixtures.privateKeyPkcs1Pem().toString());
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 121; i++) {
        JsonNode g = cli.json("publish", "--app", "live", "--branch", "main", "--runtime-version", "1.0.0", "--dist",
            (i % 2 == 0 ? Fixtures.update1() : Fixtures.update2()).toString());
        g.path("platforms").forEach(p -> ids.add(p.path("updateId").asText()));
      }
      cli.json("publish", "--app", "live", "--branch", "beta", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString(),
          "--rollout-percentage", "40");
      cli.json("channel", "--app", "live", "--channel", "production", "--branch", "main", "--rollout-branch", "beta", "--percentage", "25");
      EdgeNode fromZero = stack.edge; // started before any snapshot existed: it read the log from offset 0
      assertThat(gauge(stack.edgeUrl(), "updraft_edge_image_groups")).as("groups an edge holds after 121 publishes")
          .isBetween(1.0, 8.0);
      long tail = publishTail(infra, stack, cli);

      EdgeNode fresh = stack.startEdge("fresh", Map.of("checkins", "false"));
      JsonNode ready = JSON.readTree(Http.get("http://127.0.0.1:" + fresh.port() + "/readyz").body());
      assertThat(ready.path("snapshotApps").asInt()).isEqualTo(1);
      assertThat(ready.path("eventsReplayed").asLong()).as("the snapshot plus the tail after it, exactly: %s", ready).isEqualTo(tail);
      assertThat(ready.path("groups").asInt()).isEqualTo(JSON.readTree(Http.get(stack.edgeUrl() + "/readyz").body()).path("groups").asInt());

      int compared = 0;
      for (List<String> device : grid(ids)) {
        Answer a = ask("http://127.0.0.1:" + fromZero.port(), device);
        Answer b = ask("http://127.0.0.1:" + fresh.port(), device);
        assertThat(b).as("request %s", device).isEqualTo(a);
        compared += a.body.contains("launchAsset") ? 1 : 0;
      }
      assertThat(compared).as("the grid includes served manifests").isGreaterThan(20);

      List<String> paths = List.of("/v1/apps/live", "/v1/apps/live/updates?branch=main&runtimeVersion=1.0.0",
          "/v1/apps/live/updates?branch=beta&runtimeVersion=1.0.0", "/v1/apps/live/channels", "/v1/apps/live/branches");
      List<String> before = new ArrayList<>();
      for (String p : paths) {
        before.add(get(stack, p));
      }
      stack.restartControlPlane(data, Map.of("snapshot-interval-events", Integer.toString(EVERY)));
      for (int i = 0; i < paths.size(); i++) {
        assertThat(get(stack, paths.get(i))).as("after a start from snapshots: " + paths.get(i)).isEqualTo(before.get(i));
      }
      String started = Http.get(stack.controlUrl() + "/metrics").body();
      assertThat(gaugeIn(started, "updraft_control_snapshot_apps")).isEqualTo(1.0);
      assertThat(gaugeIn(started, "updraft_control_events_replayed")).as("the tail after the snapshot, exactly").isEqualTo((double) tail);
      stack.restartControlPlane(data.resolve("zero"), Map.of("snapshot-interval-events", "0"));
      for (int i = 0; i < paths.size(); i++) {
        assertThat(get(stack, paths.get(i))).as("after a replay from offset 0: " + paths.get(i)).isEqualTo(before.get(i));
      }
      Stack.await(fresh.close());
    }
  }

  /**
   * An edge builds its image from many apps' snapshots at once (one app per task, as many tasks as cores):
   * every app answers byte for byte as on an edge that read the log from offset 0.
   */
  @Test
  void manyAppsDecodedConcurrentlyAnswerLikeAReplayFromZero(Infra shared) throws Exception {
    int apps = 8;
    // topics of its own: the other test's app is not in this log
    Infra infra = new Infra(shared.kafkaBootstrap(), shared.topicPrefix() + "many.", shared.pgHost(), shared.pgPort(), shared.database(),
        shared.pgUser(), shared.pgPassword());
    try (Stack stack = Stack.start(infra, work.resolve("many"), Map.of("snapshot-interval-events", "4"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Map<String, List<String>> ids = new java.util.TreeMap<>();
      for (int a = 0; a < apps; a++) {
        String app = "many-" + a;
        cli.json("apps", "create", app, "--certificate", Fixtures.certificatePem().toString(), "--private-key",
            Fixtures.privateKeyPkcs1Pem().toString());
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < 4 + a % 3; i++) {
          JsonNode g = cli.json("publish", "--app", app, "--branch", "main", "--runtime-version", "1.0.0", "--dist",
              ((i + a) % 2 == 0 ? Fixtures.update1() : Fixtures.update2()).toString());
          g.path("platforms").forEach(p -> mine.add(p.path("updateId").asText()));
        }
        cli.json("publish", "--app", app, "--branch", "beta", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString(),
            "--rollout-percentage", Integer.toString(10 + 10 * a));
        cli.json("channel", "--app", app, "--channel", "production", "--branch", "main", "--rollout-branch", "beta", "--percentage",
            Integer.toString(5 * a));
        ids.put(app, mine);
      }
      EdgeNode fromZero = stack.edge; // started before any snapshot existed: it read the log from offset 0
      // every snapshot the policy asks for is written (each app's is less than 4 events behind its log): the events
      // after them are the tail a fresh edge replays
      long tail = 0;
      for (String app : ids.keySet()) {
        long last = JSON.readTree(get(stack, "/v1/apps/" + app)).path("lastSequence").asLong();
        AppSnapshot snap = SnapshotTopic.await(infra, app, "the snapshots due at sequence " + last + " are written", s -> last - s < 4);
        tail += last - snap.lastSequence();
      }

      EdgeNode fresh = stack.startEdge("fresh-many", Map.of("checkins", "false"));
      JsonNode ready = JSON.readTree(Http.get("http://127.0.0.1:" + fresh.port() + "/readyz").body());
      assertThat(ready.path("snapshotApps").asInt()).as("%s", ready).isEqualTo(apps);
      assertThat(ready.path("eventsReplayed").asLong()).as("the tails after the apps' snapshots: %s", ready).isEqualTo(tail);
      assertThat(ready.path("startMillis").has("imageBuild")).as("the start phases: %s", ready).isTrue();
      int compared = 0;
      for (Map.Entry<String, List<String>> app : ids.entrySet()) {
        for (List<String> device : grid(app.getValue())) {
          Answer a = ask("http://127.0.0.1:" + fromZero.port(), app.getKey(), device);
          Answer b = ask("http://127.0.0.1:" + fresh.port(), app.getKey(), device);
          assertThat(b).as("app %s request %s", app.getKey(), device).isEqualTo(a);
          compared += a.body.contains("launchAsset") ? 1 : 0;
        }
      }
      assertThat(compared).as("the grids include served manifests").isGreaterThan(10 * apps);
      Stack.await(fresh.close());
    }
  }

  /** Device requests over platforms, channels, current and failed updates, signatures and protocols. */
  static List<List<String>> grid(List<String> ids) {
    List<List<String>> out = new ArrayList<>();
    List<String> recent = ids.subList(Math.max(0, ids.size() - 14), ids.size());
    int n = 0;
    for (String platform : List.of("ios", "android")) {
      for (String channel : List.of("production", "main", "beta", "old")) {
        for (int k = 0; k < 6; k++) {
          n++;
          List<String> h = new ArrayList<>(List.of("expo-platform", platform, "expo-runtime-version", "1.0.0", "expo-channel-name", channel,
              "expo-protocol-version", n % 5 == 0 ? "0" : "1", "eas-client-id", "00000000-0000-4000-8000-" + String.format("%012d", n * 7919),
              "accept", "multipart/mixed,application/expo+json,application/json"));
          if (k % 2 == 0) {
            h.addAll(List.of("expo-expect-signature", "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\""));
          }
          if (k >= 2) {
            h.addAll(List.of("expo-current-update-id", recent.get((n * 3) % recent.size())));
          }
          if (k >= 4) {
            // failed ids: every entry down to the fallback depth
            List<String> failed = recent.subList(recent.size() - 1 - (k - 3) * 2, recent.size());
            h.addAll(List.of("expo-recent-failed-update-ids", "\"" + String.join("\", \"", failed) + "\""));
          }
          out.add(h);
        }
      }
    }
    return out;
  }

  record Answer(int status, String body, String signature, String filters) {}

  static Answer ask(String base, List<String> headers) throws Exception {
    return ask(base, "live", headers);
  }

  static Answer ask(String base, String app, List<String> headers) throws Exception {
    HttpResponse<String> r = Http.get(base + "/apps/" + app + "/manifest", headers.toArray(new String[0]));
    return new Answer(r.statusCode(), r.body(), r.headers().firstValue("expo-signature").orElse(null),
        r.headers().firstValue("expo-manifest-filters").orElse(null));
  }

  static String get(Stack stack, String path) throws Exception {
    HttpResponse<String> r = Http.get(stack.controlUrl() + path, "authorization", "Bearer " + Stack.ADMIN_TOKEN);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return r.body();
  }

  /**
   * Publishes roll backs (on branch {@code old}) until the log holds events of the app after its newest
   * snapshot that no snapshot will cover: the control plane writes one once {@link #EVERY} events follow the
   * last, so once the snapshot in the topic is less than that behind the log's last sequence, the events after
   * it stay the tail. Waits for sequence numbers (the app's {@code lastSequence}, the snapshot's), never a time.
   *
   * @return how many events follow the snapshot (at least one)
   */
  static long publishTail(Infra infra, Stack stack, CliRunner cli) throws Exception {
    List<String> platforms = List.of("ios", "android");
    for (String platform : platforms) {
      cli.json("rollback", "--app", "live", "--branch", "old", "--runtime-version", "1.0.0", "--embedded", "--platform", platform);
      long last = JSON.readTree(get(stack, "/v1/apps/live")).path("lastSequence").asLong();
      AppSnapshot snap = SnapshotTopic.await(infra, "live", "every snapshot due at sequence " + last + " is written",
          s -> last - s < EVERY);
      if (snap.lastSequence() < last) {
        return last - snap.lastSequence();
      }
      // the roll back was the event a due snapshot took in: the next one is the tail
    }
    throw new AssertionError("a snapshot covered each of " + platforms.size() + " roll backs published one after the other");
  }

  static double gauge(String base, String name) throws Exception {
    return gaugeIn(Http.get(base + "/metrics").body(), name);
  }

  static double gaugeIn(String metrics, String name) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(metrics);
    double sum = 0;
    boolean found = false;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      found = true;
    }
    return found ? sum : -1;
  }
}
