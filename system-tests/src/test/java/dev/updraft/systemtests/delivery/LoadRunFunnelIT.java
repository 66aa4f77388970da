package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.load.LoadCommand;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The download funnel under the load generator, on real Kafka and PostgreSQL with the real control plane, ingester
 * and edge: {@code updraft load run --profile smoke --assets --device-log FILE} with 300 iOS and Android devices, half
 * on update 1 and half on their embedded bundle, while update 2 is a rollout to no device (its patches from update 1
 * already on the edge); the generator's push trigger finishes the rollout, and the storm's devices download update
 * 2's launch asset: a bundle patch from update 1, the full bundle from an embedded bundle the server does not know.
 * A second, 2-second run of the same fleet (same seed, every device on update 2) launches it.
 * The funnel the control plane answers for every update of the app equals, stage by stage and platform by platform,
 * what the generator's own device log says its devices did (the expected numbers come from that log alone).
 */
@ExtendWith(RealInfrastructure.class)
class LoadRunFunnelIT {
  static final String APP = "loadfunnel";

  static Stack stack;
  static EdgeNode edge;
  static int edgePort;
  static String group2;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    edgePort = Ports.freePort();
    stack = Stack.start(infra, dir.resolve("data"), Map.of("edge-public-url", "http://127.0.0.1:" + edgePort));
    edge = stack.startEdge("edge-load-funnel", Map.of("edge-port", Integer.toString(edgePort)));
    CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
    cli.json("apps", "create", APP);
    JsonNode one = publish(cli, Fixtures.update1());
    // update 2 as a rollout to no device: the generator's trigger finishes it during the run
    JsonNode two = publish(cli, Fixtures.update2(), "--rollout-percentage", "0");
    group2 = two.path("groupId").asText();
    PatchFailuresIT.until("patches of update 2 computed", 120,
        () -> api("/v1/apps/" + APP + "/updates/" + group2 + "/patches").path("computed").asBoolean());
    // the edge loads patches in the background: wait until it serves each platform's, asking as no device (not counted)
    for (String platform : List.of("ios", "android")) {
      String url = "http://127.0.0.1:" + edgePort + "/apps/" + APP + "/assets/"
          + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
              .digest(BundlePatchIT.bundle(Fixtures.update2(), platform)));
      String[] asking = BundlePatchIT.released(updateId(one, platform), updateId(two, platform), EMBEDDED, platform, null);
      long deadline = System.nanoTime() + 60_000_000_000L;
      int status = BundlePatchIT.send(url, asking).statusCode();
      while (status != 226 && System.nanoTime() < deadline) {
        Thread.sleep(100);
        status = BundlePatchIT.send(url, asking).statusCode();
      }
      assertThat(status).as("the edge serves update 2's %s patch from update 1", platform).isEqualTo(226);
    }
  }

  static final String EMBEDDED = "0e5b1d2c-3f4a-4b6c-8d7e-00000000f0e2";

  static String updateId(JsonNode published, String platform) {
    for (JsonNode p : published.path("platforms")) {
      if (p.path("platform").asText().equals(platform)) {
        return p.path("updateId").asText();
      }
    }
    throw new AssertionError("no " + platform + " update in " + published);
  }

  static JsonNode publish(CliRunner cli, Path dist, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0",
        "--dist", dist.toString(), "--no-progress"));
    args.addAll(List.of(more));
    return cli.json(args.toArray(new String[0]));
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      Stack.await(edge.close());
    }
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void theFunnelEqualsTheGeneratorsOwnDeviceLog(@TempDir Path out) throws Exception {
    Path log = out.resolve("devices.tsv");
    // a new fleet each run (client ids, platforms, who starts on update 1), printed to repeat a failure
    long seed = java.util.concurrent.ThreadLocalRandom.current().nextLong();
    System.out.println("load run funnel: --seed " + seed);
    generate(log, "--name", "funnel", "--out-dir", out.toString(), "--devices", "300", "--up-to-date", "0.5", "--profile", "smoke",
        "--assets", "--seed", Long.toString(seed), "--trigger-url", stack.controlUrl() + "/v1/apps/" + APP + "/updates/" + group2
            + "/rollout/finish", "--trigger-method", "POST", "--trigger-token", Stack.ADMIN_TOKEN, "--trigger-body", "{}");
    // the same fleet a little later, every device on update 2 now: its check-ins launch it
    Path later = out.resolve("devices-later.tsv");
    generate(later, "--name", "later", "--out-dir", out.toString(), "--devices", "300", "--up-to-date", "1.0", "--profile", "constant",
        "--rate", "40", "--duration", "2s", "--seed", Long.toString(seed));

    // the expected numbers: counted from the generator's logs alone
    Map<String, Map<String, Set<String>>> devicesAt = new HashMap<>(); // "platform updateId" -> stage -> client ids
    int logged = 0;
    for (Path file : List.of(log, later)) {
      List<String> lines = Files.readAllLines(file);
      assertThat(lines.get(0)).isEqualTo("client_id\tplatform\tupdate_id\tstage\tfirst_epoch_ms");
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.split("\t");
        assertThat(f).as(line).hasSize(5);
        devicesAt.computeIfAbsent(f[1] + " " + f[2], u -> new HashMap<>()).computeIfAbsent(f[3], s -> new HashSet<>()).add(f[0]);
        logged++;
      }
    }

    JsonNode groups = api("/v1/apps/" + APP + "/updates").path("items");
    assertThat(groups).as("update 1 and update 2").hasSize(2);
    Map<String, long[]> expected = new TreeMap<>();
    for (JsonNode g : groups) {
      for (JsonNode p : g.path("platforms")) {
        String key = p.path("platform").asText() + " " + p.path("updateId").asText();
        expected.put(key, counts(devicesAt.getOrDefault(key, Map.of())));
      }
    }
    for (Map.Entry<String, Map<String, Set<String>>> u : devicesAt.entrySet()) {
      if (u.getValue().containsKey("served") || u.getValue().containsKey("full") || u.getValue().containsKey("patch")) {
        assertThat(expected).as("the log's platform update %s is one of the app's", u.getKey()).containsKey(u.getKey());
      }
    }
    long[] sum = new long[7];
    for (long[] c : expected.values()) {
      for (int i = 0; i < c.length; i++) {
        sum[i] += c[i];
      }
    }
    System.out.printf("generator's log: %d lines; per platform update [served, fetched, full, patch, patchThenFull, launched, failed]:%n",
        logged);
    expected.forEach((k, v) -> System.out.println("  " + k + " " + java.util.Arrays.toString(v)));
    assertThat(sum[0]).as("devices served an update").isGreaterThan(0);
    assertThat(sum[2] + sum[4]).as("full downloads").isGreaterThan(0);
    assertThat(sum[3] + sum[4]).as("patches").isGreaterThan(0);
    assertThat(sum[5]).as("launches").isGreaterThan(0);
    assertThat(expected.entrySet()).as("the downloaded update is launched").anyMatch(x -> x.getValue()[1] > 0 && x.getValue()[5] > 0);

    // the check-ins reach the funnel through Kafka and the ingester: wait for them (at most 120 s), then show any difference
    long deadline = System.nanoTime() + 120_000_000_000L;
    Map<String, String> funnel = actual(groups);
    while (!funnel.equals(render(expected)) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      funnel = actual(groups);
    }
    assertThat(funnel).as("the funnel per platform update [served, fetched, full, patch, patchThenFull, launched, failed]")
        .isEqualTo(render(expected));
  }

  /** One generator run against the edge with {@code --device-log log}; it must be valid and without errors. */
  static void generate(Path log, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("run", "--target", "http://127.0.0.1:" + edgePort, "--app", APP,
        "--channels", "main", "--runtime-versions", "1.0.0", "--platforms", "ios:50,android:50", "--max-lag", "30s", "--warmup", "20",
        "--device-log", log.toString()));
    args.addAll(List.of(more));
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int exit = LoadCommand.run(args.toArray(new String[0]), Map.of(), new PrintStream(o, true, StandardCharsets.UTF_8),
        new PrintStream(e, true, StandardCharsets.UTF_8));
    String said = o.toString(StandardCharsets.UTF_8) + e.toString(StandardCharsets.UTF_8);
    System.out.println(said);
    assertThat(exit).as("a valid run without errors: %s", said).isZero();
  }

  /** [served, fetched, full only, patch only, patch then full, launched, failed] from the log's devices per stage. */
  static long[] counts(Map<String, Set<String>> at) {
    Set<String> full = at.getOrDefault("full", Set.of());
    Set<String> patch = at.getOrDefault("patch", Set.of());
    Set<String> fetched = new HashSet<>(full);
    fetched.addAll(patch);
    long both = full.stream().filter(patch::contains).count();
    return new long[] {at.getOrDefault("served", Set.of()).size(), fetched.size(), full.size() - both, patch.size() - both, both,
        at.getOrDefault("launched", Set.of()).size(), at.getOrDefault("failed", Set.of()).size()};
  }

  static JsonNode api(String path) {
    try {
      java.net.http.HttpResponse<String> r = BundlePatchIT.HTTP.send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create(stack.controlUrl() + path)).header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
      return BundlePatchIT.JSON.readTree(r.body());
    } catch (Exception e) {
      throw new AssertionError(path, e);
    }
  }

  static Map<String, String> render(Map<String, long[]> m) {
    Map<String, String> r = new TreeMap<>();
    m.forEach((k, v) -> r.put(k, java.util.Arrays.toString(v)));
    return r;
  }

  /** The funnel route's numbers, keyed as {@link #render} keys the log's. */
  static Map<String, String> actual(JsonNode groups) {
    Map<String, String> r = new TreeMap<>();
    for (JsonNode g : groups) {
      JsonNode f = api("/v1/apps/" + APP + "/updates/" + g.path("groupId").asText() + "/funnel");
      for (JsonNode p : f.path("platforms")) {
        JsonNode fe = p.path("fetched");
        r.put(p.path("platform").asText() + " " + p.path("updateId").asText(), java.util.Arrays.toString(new long[] {
            p.path("served").asLong(), fe.path("devices").asLong(), fe.path("full").asLong(), fe.path("patch").asLong(),
            fe.path("patchThenFull").asLong(), p.path("launched").asLong(), p.path("failed").asLong()}));
      }
    }
    return r;
  }
}
