package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.load.run.Timeseries;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generator against deliberately slow or failing loopback servers. Every latency assertion is a
 * lower bound worked out by hand from the schedule and the server's delays (a lower bound holds on any
 * machine, however loaded); counts are exact.
 */
class GeneratorTest {
  @TempDir Path dir;

  @Test
  void keepsTheScheduleWhileTheServerHoldsEveryResponse() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // 20 req/s for 1 s: arrivals at 0.05, 0.10, ... 1.00 s; the server answers nothing until all 20 arrived.
      // A closed-model generator would wait for the first answer and deadlock; an open one keeps sending.
      edge.barrier = 20;
      Runs.Outcome o = Runs.run(dir, "barrier", "--target", edge.url(), "--profile", "constant", "--rate", "20",
          "--duration", "1s", "--warmup", "0", "--max-lag", "10s", "--timeout", "20s");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      assertThat(edge.fleetSeen()).hasSize(20);
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("requests_scheduled").asLong()).isEqualTo(20);
      assertThat(t.path("requests_sent").asLong()).isEqualTo(20);
      assertThat(t.path("ok").asLong()).isEqualTo(20);
      assertThat(t.path("dropped").asLong()).isZero();
      // the first request (intended at 0.05 s) is answered only after the 20th was sent (not before 1.00 s):
      // its latency from the intended time is at least 950 ms although the server itself took no time
      assertThat(t.path("latency_ms").path("max").asDouble()).isGreaterThanOrEqualTo(949); // 950 less the 0.5 ms a batch may leave early
      // and no request left before its intended time (k+1)*50 ms (2 ms allowed for clock granularity)
      long start = o.summary().path("run").path("start_epoch_ms").asLong();
      java.util.List<TestEdge.Seen> seen = edge.fleetSeen();
      for (int k = 0; k < seen.size(); k++) {
        assertThat(seen.get(k).epochMillis() - start).as("arrival %d", k).isGreaterThanOrEqualTo((k + 1) * 50L - 2);
      }
    }
  }

  @Test
  void latencyIncludesQueueingBehindASlowServer() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // one connection, 50 ms per answer, 10 arrivals 10 ms apart (at 10..100 ms): the server falls behind.
      // Request k (0-based) cannot complete before 10 + 50(k+1) ms, intended at 10(k+1) ms,
      // so its latency is at least 10 + 40(k+1) ms: 50 ms for the first, 410 ms for the last.
      edge.delayMs = n -> 50;
      Runs.Outcome o = Runs.run(dir, "queue", "--target", edge.url(), "--profile", "constant", "--rate", "100",
          "--duration", "100ms", "--connections", "1", "--warmup", "0", "--max-lag", "10s");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      JsonNode l = o.summary().path("results").path("totals").path("latency_ms");
      assertThat(l.path("count").asLong()).isEqualTo(10);
      assertThat(l.path("p50").asDouble()).isGreaterThanOrEqualTo(209); // 5th smallest >= 10 + 40*5, less 0.5 ms of early dispatch
      assertThat(l.path("max").asDouble()).isGreaterThanOrEqualTo(409);
      assertThat(l.path("p50").asDouble()).isGreaterThan(50); // more than the server's own 50 ms: queueing counts
    }
  }

  @Test
  void dropsRequestsWhenTheInFlightCapIsReachedAndFlagsTheRunInvalid() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // 10 arrivals at 10..100 ms, the server takes 1 s, at most 3 in flight: the first 3 are sent and
      // nothing comes back before 1.01 s, so the other 7 find the cap reached and are dropped, never sent late.
      edge.delayMs = n -> 1000;
      Runs.Outcome o = Runs.run(dir, "drops", "--target", edge.url(), "--profile", "constant", "--rate", "100",
          "--duration", "100ms", "--max-in-flight", "3", "--warmup", "0", "--max-lag", "10s");
      assertThat(o.exit()).isEqualTo(LoadCommand.EXIT_INVALID);
      assertThat(o.err()).contains("INVALID");
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("requests_sent").asLong()).isEqualTo(3);
      assertThat(t.path("dropped").asLong()).isEqualTo(7);
      assertThat(t.path("dropped_in_flight_cap").asLong()).isEqualTo(7);
      assertThat(o.summary().path("run").path("valid").asBoolean()).isFalse();
      assertThat(o.summary().path("run").path("invalid_reason").asText()).contains("7 requests dropped");
      assertThat(edge.fleetSeen()).hasSize(3);
    }
  }

  @Test
  void handCheckedSmallRunMatchesTheSummary() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // 20 arrivals (20 req/s for 1 s). The server answers its n-th request after 20n ms, and every 5th with
      // a 503. By hand: 20 sent, 4 errors (status_5xx, requests 5, 10, 15, 20), 16 ok, error rate 0.2, no
      // drops; each latency is at least its delay, so the sorted latencies are at least 20, 40, ..., 400 ms:
      // p50 (10th) >= 200, p95 (19th) >= 380, max >= 400.
      edge.delayMs = n -> 20 * n;
      edge.status = n -> n % 5 == 0 ? 503 : 0;
      Runs.Outcome o = Runs.run(dir, "hand", "--target", edge.url(), "--profile", "constant", "--rate", "20",
          "--duration", "1s", "--warmup", "0", "--max-lag", "10s", "--devices", "1000");
      assertThat(o.exit()).as(o.err()).isEqualTo(LoadCommand.EXIT_THRESHOLDS);
      JsonNode r = o.summary().path("results");
      JsonNode t = r.path("totals");
      assertThat(t.path("requests_scheduled").asLong()).isEqualTo(20);
      assertThat(t.path("requests_sent").asLong()).isEqualTo(20);
      assertThat(t.path("responses").asLong()).isEqualTo(20);
      assertThat(t.path("ok").asLong()).isEqualTo(16);
      assertThat(t.path("errors").asLong()).isEqualTo(4);
      assertThat(t.path("error_rate").asDouble()).isEqualTo(0.2);
      assertThat(t.path("dropped").asLong()).isZero();
      assertThat(r.path("errors_by_kind").path("status_5xx").asLong()).isEqualTo(4);
      assertThat(r.path("errors_by_kind").size()).isEqualTo(1);
      assertThat(t.path("manifests_served").asLong() + t.path("no_update_served").asLong()).isEqualTo(16);
      JsonNode l = t.path("latency_ms");
      assertThat(l.path("count").asLong()).isEqualTo(20);
      assertThat(l.path("p50").asDouble()).isGreaterThanOrEqualTo(200);
      assertThat(l.path("p95").asDouble()).isGreaterThanOrEqualTo(380);
      assertThat(l.path("max").asDouble()).isGreaterThanOrEqualTo(400);
      JsonNode phase = r.path("per_phase").path("constant");
      assertThat(phase.path("sent").asLong()).isEqualTo(20);
      assertThat(phase.path("errors").asLong()).isEqualTo(4);
      assertThat(phase.path("target_peak_rps").asDouble()).isEqualTo(20);
      // the request the generator made of each key before the run is not counted
      assertThat(r.path("discovery")).hasSize(2);
    }
  }

  @Test
  void malformedResponsesAreCountedByKindInTheSummary() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // of 20 requests: the 4th, 8th, 12th, 16th, 20th lack the closing delimiter's CRLF (iOS rejects them),
      // the 6th and 18th carry an unknown directive type: 5 multipart_malformed, 2 unknown_directive
      String part = "--" + TestEdge.BOUNDARY + "\r\ncontent-disposition: inline; name=\"directive\"\r\n\r\n";
      edge.brokenBody = n -> n % 4 == 0 ? part + "{\"type\":\"noUpdateAvailable\"}\r\n--" + TestEdge.BOUNDARY + "--"
          : n == 6 || n == 18 ? part + "{\"type\":\"restartApp\"}\r\n--" + TestEdge.BOUNDARY + "--\r\n" : null;
      Runs.Outcome o = Runs.run(dir, "broken", "--target", edge.url(), "--profile", "constant", "--rate", "20",
          "--duration", "1s", "--warmup", "0", "--max-lag", "10s", "--devices", "1000");
      assertThat(o.exit()).isEqualTo(LoadCommand.EXIT_THRESHOLDS);
      JsonNode r = o.summary().path("results");
      assertThat(r.path("errors_by_kind").path("multipart_malformed").asLong()).isEqualTo(5);
      assertThat(r.path("errors_by_kind").path("unknown_directive").asLong()).isEqualTo(2);
      assertThat(r.path("totals").path("ok").asLong()).isEqualTo(13);
      assertThat(r.path("error_samples").path("multipart_malformed").get(0).asText()).contains("not followed by CRLF");
    }
  }

  @Test
  void sendsTheHeadersOfARealClient() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "headers", "--target", edge.url(), "--profile", "constant", "--rate", "50",
          "--duration", "1s", "--warmup", "0", "--max-lag", "10s", "--signature", "--devices", "200", "--channels", "production:50,staging:50",
          "--runtime-versions", "1.0.0,2.0.0");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      assertThat(edge.fleetSeen()).hasSize(50);
      for (TestEdge.Seen s : edge.fleetSeen()) {
        var h = s.headers();
        assertThat(h.get("accept")).isEqualTo("multipart/mixed,application/expo+json,application/json");
        assertThat(h.get("expo-protocol-version")).isEqualTo("1");
        assertThat(h.get("expo-platform")).isIn("ios", "android");
        assertThat(h.get("expo-runtime-version")).isIn("1.0.0", "2.0.0");
        assertThat(h.get("expo-channel-name")).isIn("production", "staging");
        assertThat(h.get("expo-expect-signature")).isEqualTo("sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"");
        assertThat(h.get("expo-current-update-id")).isNotBlank();
        assertThat(h.get("expo-embedded-update-id")).isNotBlank();
        String id = h.get("eas-client-id");
        if (h.get("expo-platform").equals("ios")) {
          assertThat(id).matches("[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}");
        } else {
          assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        }
      }
    }
  }

  @Test
  void pushTriggerPublishesMidRunAndTheFleetFollows() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      String before = edge.latest.get("ios")[0];
      Runs.Outcome o = Runs.run(dir, "push", "--target", edge.url(), "--profile", "constant", "--rate", "40",
          "--duration", "3s", "--warmup", "20", "--trigger-url", edge.url() + "/trigger", "--trigger-at", "1s",
          "--trigger-token", "s3cret", "--trigger-body", "{\"republish\":true}", "--devices", "1000");
      assertThat(o.exit()).as(o.err() + o.out()).isEqualTo(0);
      assertThat(edge.triggerCalls).containsExactly("Bearer s3cret {\"republish\":true}");
      String after = edge.latest.get("ios")[0];
      assertThat(after).isNotEqualTo(before);
      JsonNode push = o.summary().path("results").path("push");
      assertThat(push.path("status").asInt()).isEqualTo(201);
      assertThat(push.path("visible_after_s").size()).isEqualTo(2);
      assertThat(push.path("expected_update_switches_learned").asLong()).isEqualTo(2);
      assertThat(o.summary().path("results").path("totals").path("errors").asLong()).isZero();
      // devices asking after the push were served the new update and now send it as their current update
      long runningNew = edge.fleetSeen().stream().filter(s -> after.equals(s.headers().get("expo-current-update-id"))).count();
      long servedManifests = o.summary().path("results").path("totals").path("manifests_served").asLong();
      assertThat(servedManifests).isGreaterThan(0);
      assertThat(runningNew).isGreaterThanOrEqualTo(0);
    }
  }

  @Test
  void aFailedPushTriggerIsReportedAndNothingIsLearned(@TempDir Path bodyDir) throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Path body = bodyDir.resolve("body.json");
      java.nio.file.Files.writeString(body, "{\"from\":\"file\"}");
      // the trigger URL answers 404 (no such route): the run goes on, the push is reported as not fired
      Runs.Outcome o = Runs.run(dir, "nopush", "--target", edge.url(), "--profile", "constant", "--rate", "20",
          "--duration", "2s", "--warmup", "0", "--trigger-url", edge.url() + "/no-such-route", "--trigger-at", "500ms",
          "--trigger-body", "@" + body, "--devices", "100");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      JsonNode push = o.summary().path("results").path("push");
      assertThat(push.path("status").asInt()).isEqualTo(404);
      assertThat(push.path("visible_after_s").size()).isZero();
      assertThat(push.path("expected_update_switches_learned").asLong()).isZero();
      assertThat(edge.seen.stream().filter(s -> s.path().equals("/no-such-route")).count()).isEqualTo(1);
    }
  }

  @Test
  void roundRobinFailsOverToTheSurvivorAndReportsTheOutage() throws Exception {
    int dead;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      dead = s.getLocalPort();
    }
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "failover", "--target", edge.url() + ",http://127.0.0.1:" + dead, "--profile", "constant",
          "--rate", "50", "--duration", "1s", "--warmup", "20", "--max-error-rate", "1");
      JsonNode targets = o.summary().path("results").path("targets");
      long connect = o.summary().path("results").path("errors_by_kind").path("connect").asLong();
      assertThat(connect).isGreaterThanOrEqualTo(1);
      assertThat(targets.get(0).path("sent").asLong() + targets.get(1).path("sent").asLong()).isEqualTo(50);
      assertThat(targets.get(1).path("sent").asLong()).isEqualTo(connect);
      assertThat(targets.get(0).path("errors").asLong()).as(o.summary().path("results").path("error_samples").toString()).isZero();
      JsonNode outage = targets.get(1).path("outages").get(0);
      assertThat(outage.path("end_s").isNull()).isTrue();
      assertThat(outage.path("failed_requests").asLong()).isEqualTo(connect);
      assertThat(edge.fleetSeen()).hasSize((int) (50 - connect));
    }
  }

  @Test
  void restartUnderLoadReportsTheFailedRequestsAndTheTimeUntil200() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // the 11th to 15th requests find the edge "restarting" (503, /readyz 503); the 16th is answered again
      edge.status = n -> n > 10 && n <= 15 ? 503 : 0;
      Runs.Outcome o = Runs.run(dir, "restart", "--target", edge.url(), "--profile", "constant", "--rate", "50",
          "--duration", "1s", "--warmup", "0", "--max-error-rate", "1", "--connections", "1");
      JsonNode r = o.summary().path("results");
      assertThat(r.path("errors_by_kind").path("status_5xx").asLong()).isEqualTo(5);
      JsonNode outages = r.path("targets").get(0).path("outages");
      assertThat(outages).hasSize(1);
      assertThat(outages.get(0).path("failed_requests").asLong()).isEqualTo(5);
      assertThat(outages.get(0).path("seconds_until_200").asDouble()).isGreaterThan(0);
      // per-interval error counts are in the time series
      assertThat(Timeseries.read(o.file("-timeseries.csv")).rows().stream()
          .filter(x -> x.metric().equals("errors")).mapToDouble(Timeseries.Row::value).sum()).isEqualTo(5);
    }
  }

  @Test
  void stormOpenersDownloadAndHashCheckTheLaunchAsset() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "assets", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--asset-hash", "always");
      assertThat(o.exit()).as(o.summary().path("results").path("error_samples").toString()).isEqualTo(0);
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("manifests_served").asLong()).isEqualTo(t.path("requests_sent").asLong());
      assertThat(t.path("asset_downloads").asLong()).isEqualTo(t.path("manifests_served").asLong());
      // wrong bytes at the URL: every download is an asset_hash error
      edge.assetBytes = "tampered".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      Runs.Outcome bad = Runs.run(dir, "assets-bad", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--max-error-rate", "1");
      JsonNode bt = bad.summary().path("results");
      assertThat(bt.path("errors_by_kind").path("asset_hash").asLong()).isEqualTo(bt.path("totals").path("asset_downloads").asLong());
      assertThat(bt.path("totals").path("asset_downloads").asLong()).isGreaterThan(0);
    }
  }

  @Test
  void stormOpenersAskForAPatchFromTheUpdateTheyRanAndCountItsBytes() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      edge.answerPatches = true;
      Runs.Outcome o = Runs.run(dir, "patches", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--warmup", "20", "--max-lag", "10s", "--devices", "500");
      assertThat(o.exit()).as(o.summary().path("results").path("error_samples").toString()).isEqualTo(0);
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("asset_downloads").asLong()).isGreaterThan(0);
      assertThat(t.path("asset_patches").asLong()).isEqualTo(t.path("asset_downloads").asLong());
      assertThat(t.path("asset_patch_bytes").asLong()).isEqualTo(7 * t.path("asset_patches").asLong());
      List<TestEdge.Seen> assets = edge.seen.stream().filter(s -> s.path().startsWith("/assets/")).collect(Collectors.toList());
      assertThat(assets).isNotEmpty().allSatisfy(s -> {
        assertThat(s.headers()).containsEntry("a-im", "bsdiff");
        // the base is the update the device ran, never the one it is being given
        assertThat(s.headers().get("expo-current-update-id")).isNotEqualToIgnoringCase(s.headers().get("expo-requested-update-id"));
      });

      edge.seen.clear();
      Runs.Outcome full = Runs.run(dir, "no-patches", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--asset-patches", "false", "--warmup", "20", "--max-lag", "10s", "--devices", "500");
      assertThat(full.exit()).isEqualTo(0);
      assertThat(full.summary().path("results").path("totals").path("asset_patches").asLong()).isZero();
      assertThat(edge.seen.stream().filter(s -> s.path().startsWith("/assets/"))).isNotEmpty().noneMatch(s -> s.headers().containsKey("a-im"));
    }
  }

  @Test
  void fullDownloadsAskForTheClientsEncodingsAndAreHashCheckedDecodedButCountedAsTheyTravel() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      edge.encodeAssets = true;
      Runs.Outcome o = Runs.run(dir, "encodings", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--asset-hash", "always",
          "--asset-patches", "false");
      assertThat(o.exit()).as(o.summary().path("results").path("error_samples").toString()).isEqualTo(0);
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("asset_downloads").asLong()).isGreaterThan(0);
      assertThat(t.path("asset_bytes").asLong()).isEqualTo(edge.assetBytesSent.get());
      List<TestEdge.Seen> assets = edge.seen.stream().filter(s -> s.path().startsWith("/assets/")).collect(Collectors.toList());
      assertThat(assets).isNotEmpty().allSatisfy(s -> assertThat(s.headers().get("accept-encoding"))
          .isEqualTo("ios".equals(s.headers().get("expo-platform")) ? "br, gzip, deflate" : "zstd, br, gzip"));
      assertThat(assets.stream().map(s -> s.headers().get("expo-platform")).distinct()).containsExactlyInAnyOrder("ios", "android");

      // the server adds encoded copies after the publish: the first downloads of a URL were identity, later ones
      // encoded; hashing only the first download of each URL must not call the later ones wrong
      edge.identityFirst = 10;
      edge.assetBytesSent.set(0);
      Runs.Outcome first = Runs.run(dir, "encodings-first", "--target", edge.url(), "--profile", "storm", "--time-scale", "0.005",
          "--scale", "0.1", "--assets", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--asset-patches", "false");
      assertThat(first.exit()).as(first.summary().path("results").path("error_samples").toString()).isEqualTo(0);
      assertThat(first.summary().path("results").path("totals").path("asset_bytes").asLong()).isEqualTo(edge.assetBytesSent.get());
    }
  }
}
