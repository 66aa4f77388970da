package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The download funnel end to end on real Kafka and PostgreSQL with the real control plane, ingester, edge and CLI:
 * simulated iOS devices on update 1 ask for a manifest (served update 2), then fetch its launch asset from the edge
 * as expo-updates 57 does (full, a patch, or a patch then the full bundle: the fallback), some launch it (their next
 * check-in runs it), some report it failed, some only ask again (a second fetch or check-in must not count twice);
 * requests without a client id (the test's own reads) count for no device. Some of the devices (and one the edge never
 * served) report JavaScript errors of update 2 over the edge's OTLP route (plain OTLP/JSON posts; some twice, one also
 * an error of update 1), and a report without a client id: the erroring stage counts each reporting device once.
 * The funnel of the API and the CLI equals what the test planned, device by device, per platform and summed over
 * its hours.
 */
@ExtendWith(RealInfrastructure.class)
class DownloadFunnelIT {
  static final String APP = "funnel";
  static final String EMBEDDED = "0e5b1d2c-3f4a-4b6c-8d7e-00000000f0e1";

  static Stack stack;
  static EdgeNode edge;
  static int edgePort;
  static String manifestUrl;
  static String assetUrl;
  static String group2;
  static String[] ios;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    edgePort = Ports.freePort();
    stack = Stack.start(infra, dir.resolve("data"), Map.of("edge-public-url", "http://127.0.0.1:" + edgePort));
    edge = stack.startEdge("edge-funnel", Map.of("edge-port", Integer.toString(edgePort)));
    CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
    cli.json("apps", "create", APP);
    JsonNode one = publish(cli, Fixtures.update1());
    JsonNode two = publish(cli, Fixtures.update2());
    group2 = two.path("groupId").asText();
    ios = new String[] {PatchFailuresIT.updateId(one), PatchFailuresIT.updateId(two)};
    manifestUrl = "http://127.0.0.1:" + edgePort + "/apps/" + APP + "/manifest";
    PatchFailuresIT.until("patches of update 2 computed", 120,
        () -> api("/v1/apps/" + APP + "/updates/" + group2 + "/patches").path("computed").asBoolean());
    // read without a client id: no device of the funnel
    assetUrl = manifest(null, ios[0], List.of()).path("launchAsset").path("url").asText();
    // the edge loads patches in the background: wait for it with requests that name no device (not counted)
    long deadline = System.nanoTime() + 60_000_000_000L;
    int status = asset(null, true).statusCode();
    while (status != 226 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      status = asset(null, true).statusCode();
    }
    assertThat(status).as("the edge serves update 2's patch from update 1").isEqualTo(226);
  }

  static JsonNode publish(CliRunner cli, Path dist) {
    return cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", dist.toString(), "--no-progress");
  }

  static JsonNode api(String path) {
    try {
      HttpResponse<String> r = BundlePatchIT.HTTP.send(HttpRequest.newBuilder(URI.create(stack.controlUrl() + path))
          .header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
      return BundlePatchIT.JSON.readTree(r.body());
    } catch (Exception e) {
      throw new AssertionError(path, e);
    }
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

  /** A device's manifest request running {@code current}, asking for JSON: the manifest it is served. */
  static JsonNode manifest(String client, String current, List<String> failed) throws Exception {
    HttpResponse<byte[]> r = checkIn(client, current, failed, "application/json");
    assertThat(r.statusCode()).as("manifest for %s", client).isEqualTo(200);
    return BundlePatchIT.JSON.readTree(r.body());
  }

  /** A device's check-in as expo-updates 57 sends it (multipart accepted): its body as text. */
  static String checkIn(String client, String current, List<String> failed) throws Exception {
    HttpResponse<byte[]> r = checkIn(client, current, failed, "multipart/mixed,application/expo+json,application/json");
    assertThat(r.statusCode()).as("check-in of %s", client).isEqualTo(200);
    return new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
  }

  static HttpResponse<byte[]> checkIn(String client, String current, List<String> failed, String accept) throws Exception {
    List<String> h = new ArrayList<>(List.of("accept", accept, "expo-platform", "ios", "expo-protocol-version", "1",
        "expo-runtime-version", "1.0.0", "expo-channel-name", "main", "expo-current-update-id", current,
        "expo-embedded-update-id", EMBEDDED));
    if (client != null) {
      h.addAll(List.of("eas-client-id", client));
    }
    if (!failed.isEmpty()) {
      h.addAll(List.of("expo-recent-failed-update-ids", String.join(", ", failed.stream().map(f -> "\"" + f + "\"").toList())));
    }
    return BundlePatchIT.send(manifestUrl, h.toArray(new String[0]));
  }

  /** Update 2's launch asset for {@code client} on update 1: a patch request (A-IM) or the full bundle. */
  static HttpResponse<byte[]> asset(String client, boolean patch) throws Exception {
    List<String> h = new ArrayList<>(Arrays.asList(BundlePatchIT.released(ios[0], ios[1], EMBEDDED, "ios", null)));
    if (client != null) {
      h.addAll(List.of("eas-client-id", client));
    }
    if (!patch) {
      int i = h.indexOf("A-IM");
      h.remove(i + 1);
      h.remove(i);
    }
    return BundlePatchIT.send(assetUrl, h.toArray(new String[0]));
  }

  @Test
  void theFunnelCountsEachDeviceOnceAtEachStageItReached() throws Exception {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    int full = 2 + rnd.nextInt(4);
    int patch = 2 + rnd.nextInt(4);
    int patchThenFull = 1 + rnd.nextInt(3);
    int servedOnly = 1 + rnd.nextInt(3);
    System.out.printf("download funnel plan: full %d, patch %d, patch then full %d, served only %d%n", full, patch, patchThenFull, servedOnly);
    int launched = 0;
    int failed = 0;
    int erroring = 0;
    List<String> kinds = new ArrayList<>();
    kinds.addAll(java.util.Collections.nCopies(full, "full"));
    kinds.addAll(java.util.Collections.nCopies(patch, "patch"));
    kinds.addAll(java.util.Collections.nCopies(patchThenFull, "patchThenFull"));
    kinds.addAll(java.util.Collections.nCopies(servedOnly, "served"));
    for (int i = 0; i < kinds.size(); i++) {
      String client = "device-" + i;
      String kind = kinds.get(i);
      assertThat(manifest(client, ios[0], List.of()).path("id").asText()).as("%s is served update 2", client).isEqualTo(ios[1]);
      assertThat(checkIn(client, ios[0], List.of())).as("asked again before downloading: still one device served").contains(ios[1]);
      if (kind.equals("full")) {
        assertThat(asset(client, false).statusCode()).isEqualTo(200);
        assertThat(asset(client, false).statusCode()).as("a second full download is the same device").isEqualTo(200);
      } else if (kind.startsWith("patch")) {
        assertThat(asset(client, true).statusCode()).as("%s gets a patch", client).isEqualTo(226);
        if (kind.equals("patchThenFull")) {
          assertThat(asset(client, false).statusCode()).as("the fallback").isEqualTo(200);
        }
      }
      if (i == 0 || rnd.nextInt(3) == 0) { // device-0 (full) always, about a third of the others
        assertThat(reportError(client, ios[1]).statusCode()).as("%s reports an error", client).isEqualTo(200);
        if (rnd.nextBoolean()) {
          assertThat(reportError(client, ios[1]).statusCode()).as("and another: the same device").isEqualTo(200);
        }
        erroring++;
      }
      if (kind.equals("served")) {
        continue;
      }
      // of those that fetched it: about half launch it, a few report it failed, the rest say nothing more
      int fate = rnd.nextInt(4);
      if (fate <= 1) {
        checkIn(client, ios[1], List.of());
        checkIn(client, ios[1], List.of()); // launched again: once
        launched++;
      } else if (fate == 2) {
        assertThat(checkIn(client, ios[0], List.of(ios[1]))).as("a device that failed it is not served it again").doesNotContain(ios[1] + "\"");
        failed++;
      }
    }
    // a device no edge served (it ran update 2 from elsewhere) still erred on it; an error of update 1 and one
    // without a client id are no device of update 2's erroring stage
    assertThat(reportError("device-unserved", ios[1]).statusCode()).isEqualTo(200);
    erroring++;
    assertThat(reportError("device-0", ios[0]).statusCode()).isEqualTo(200);
    assertThat(reportError(null, ios[1]).statusCode()).isEqualTo(200);
    int served = full + patch + patchThenFull + servedOnly;
    int fetched = full + patch + patchThenFull;
    int launchedPlanned = launched;
    int failedPlanned = failed;
    int erroringPlanned = erroring;
    System.out.printf("download funnel planned: served %d, fetched %d, launched %d, failed %d, erroring %d%n", served, fetched, launched, failed,
        erroring);

    PatchFailuresIT.until("the funnel reaches the planned numbers", 120, () -> {
      JsonNode p = ios(funnel());
      return p.path("served").asLong() == served && p.path("fetched").path("devices").asLong() == fetched
          && p.path("launched").asLong() == launchedPlanned && p.path("failed").asLong() == failedPlanned
          && p.path("erroring").asLong() == erroringPlanned;
    });
    JsonNode f = funnel();
    JsonNode p = ios(f);
    assertThat(p.path("updateId").asText()).isEqualTo(ios[1]);
    assertThat(p.path("served").asLong()).isEqualTo(served);
    assertThat(p.path("fetched").path("devices").asLong()).isEqualTo(fetched);
    assertThat(p.path("fetched").path("full").asLong()).as("full only").isEqualTo(full);
    assertThat(p.path("fetched").path("patch").asLong()).as("patch only").isEqualTo(patch);
    assertThat(p.path("fetched").path("patchThenFull").asLong()).isEqualTo(patchThenFull);
    assertThat(p.path("launched").asLong()).isEqualTo(launched);
    assertThat(p.path("failed").asLong()).isEqualTo(failed);
    assertThat(p.path("erroring").asLong()).as("devices that reported an error of update 2").isEqualTo(erroring);
    long[] hourly = new long[5];
    for (JsonNode h : p.path("hourly")) {
      hourly[0] += h.path("served").asLong();
      hourly[1] += h.path("fetched").asLong();
      hourly[2] += h.path("launched").asLong();
      hourly[3] += h.path("failed").asLong();
      hourly[4] += h.path("erroring").asLong();
    }
    assertThat(hourly).as("the hours add up to the totals").containsExactly(served, fetched, launched, failed, erroring);
    for (JsonNode other : f.path("platforms")) {
      if (!other.path("platform").asText().equals("ios")) {
        assertThat(other.path("served").asLong() + other.path("fetched").path("devices").asLong() + other.path("launched").asLong()
            + other.path("erroring").asLong())
            .as("no %s device took part", other.path("platform").asText()).isZero();
      }
    }

    CliRunner.Result shown = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN).run("insights", "--app", APP, "--update", group2, "--funnel");
    assertThat(shown.status()).as(shown.err()).isZero();
    assertThat(shown.out()).contains("served " + served + " -> fetched " + fetched + " (full " + full + ", patch " + patch
        + ", patch then full " + patchThenFull + ") -> launched " + launched + "; failed " + failed + "; erroring " + erroring);
  }

  /** An error of {@code updateId} reported by {@code client} (null: the app set no client id) as OTLP/JSON logs to the edge. */
  static HttpResponse<String> reportError(String client, String updateId) throws Exception {
    StringBuilder attrs = new StringBuilder(attr("expo.app.id", APP)).append(',').append(attr("expo.update.id", updateId))
        .append(',').append(attr("os.name", "ios")).append(',').append(attr("expo.channel", "main"));
    if (client != null) {
      attrs.append(',').append(attr("expo.client.id", client));
    }
    String body = "{\"resourceLogs\":[{\"resource\":{\"attributes\":[" + attrs + "]},\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":17,"
        + "\"attributes\":[" + attr("exception.type", "TypeError") + "," + attr("exception.message", "undefined is not an object") + ","
        + attr("exception.stacktrace", "TypeError: undefined is not an object\\n    at LoginScreen (index.bundle:1:4321)") + "]}]}]}]}";
    return BundlePatchIT.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edgePort + "/v1/logs"))
        .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static String attr(String key, String value) {
    return "{\"key\":\"" + key + "\",\"value\":{\"stringValue\":\"" + value + "\"}}";
  }

  static JsonNode funnel() {
    return api("/v1/apps/" + APP + "/updates/" + group2 + "/funnel");
  }

  static JsonNode ios(JsonNode funnel) {
    for (JsonNode p : funnel.path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        return p;
      }
    }
    throw new AssertionError("no ios platform in " + funnel);
  }
}
