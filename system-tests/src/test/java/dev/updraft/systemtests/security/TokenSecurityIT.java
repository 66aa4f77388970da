package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.Topics;
import dev.updraft.systemtests.reliability.Api;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Logs;
import dev.updraft.systemtests.reliability.Metrics;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publisher tokens: random (256 bits, each bit fair over many tokens), stored only as their SHA-256,
 * never in the event log, the telemetry topic, the metrics or any log line (every logger at every level,
 * captured while tokens are issued, used, mistyped and revoked); and guessing is throttled per address:
 * after {@code --auth-failure-limit} invalid tokens the address gets 429 with {@code retry-after} (its
 * valid tokens too, so a guess learns nothing) until the window ends, counted in
 * {@code updraft_control_auth_failures_total} and {@code updraft_control_auth_throttled_total}.
 */
@ExtendWith(RealInfrastructure.class)
class TokenSecurityIT {
  static final String APP = "tokens";

  @Test
  void tokensAreRandomStoredHashedAndNeverWrittenOrLoggedInClear(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    List<String> secrets = new ArrayList<>();
    Map<String, String> idBySecret = new HashMap<>();
    String logs;
    String metrics;
    try (LogCapture capture = LogCapture.capture()) {
      // 151 mistyped tokens on purpose: the throttle (tested below) is off here
      ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir, "auth-failure-limit", "0");
      try {
        String base = "http://127.0.0.1:" + cp.port();
        CliRun.ok(base, Services.ADMIN, "apps", "create", APP);
        for (int i = 0; i < 150; i++) {
          String role = i % 3 == 0 ? "read" : i % 3 == 1 ? "publish" : "admin";
          Api.Resp r = Api.post(base + "/v1/apps/" + APP + "/tokens", Services.ADMIN, "{\"role\":\"" + role + "\",\"label\":\"t" + i + "\"}");
          assertThat(r.status()).as(r.toString()).isEqualTo(201);
          secrets.add(r.json().path("token").asText());
          idBySecret.put(r.json().path("token").asText(), r.json().path("tokenId").asText());
        }
        // the CLI's way too: shown once on stdout, as the user asked for it
        JsonNode viaCli = CliRun.ok(base, Services.ADMIN, "tokens", "create", "--app", APP, "--role", "publish", "--expires-in", "30d");
        java.time.Duration life = java.time.Duration.between(java.time.Instant.parse(viaCli.path("issuedAt").asText()),
            java.time.Instant.parse(viaCli.path("expiresAt").asText()));
        assertThat(life).as("--expires-in 30d").isEqualTo(java.time.Duration.ofDays(30));
        secrets.add(viaCli.path("token").asText());
        idBySecret.put(viaCli.path("token").asText(), viaCli.path("tokenId").asText());
        for (String s : secrets) {
          assertThat(Api.get(base + "/v1/apps/" + APP, s).status()).as("each token works").isEqualTo(200);
          assertThat(Api.get(base + "/v1/apps/" + APP, s + "x").status()).as("a mistyped token does not").isEqualTo(401);
        }
        assertThat(Api.send("DELETE", base + "/v1/apps/" + APP + "/tokens/" + idBySecret.get(secrets.get(0)), Services.ADMIN, null, Map.of()).status())
            .isEqualTo(200);
        assertThat(Api.get(base + "/v1/apps/" + APP, secrets.get(0)).status()).as("a revoked token").isEqualTo(401);
        metrics = Metrics.scrape(base + "/metrics");
      } finally {
        Services.await(cp.close());
        Services.await(vertx.close());
      }
      logs = capture.text();
      assertThat(capture.lines()).as("log lines captured").isPositive();
    }

    // random: 256 bits each, all different, every bit position fair over the lot
    Set<String> distinct = new HashSet<>(secrets);
    assertThat(distinct).hasSize(secrets.size());
    long ones = 0;
    long bits = 0;
    for (String s : secrets) {
      assertThat(s).matches("updraft_[A-Za-z0-9_-]{43}");
      byte[] raw = Base64.getUrlDecoder().decode(s.substring("updraft_".length()));
      assertThat(raw.length * 8).as("bits of randomness").isGreaterThanOrEqualTo(256);
      for (byte b : raw) {
        ones += Integer.bitCount(b & 0xff);
        bits += 8;
      }
    }
    // 38,656 fair bits: the share of ones is 0.5 with a standard deviation of 0.0025; 0.02 is 8 of them
    assertThat((double) ones / bits).isBetween(0.48, 0.52);

    // stored hashed: the token.issued event carries the SHA-256 of the secret, and nothing carries the secret
    Map<String, String> shaById = new HashMap<>();
    for (EventEnvelope e : Logs.events(infra.kafkaBootstrap(), infra.topicPrefix(), APP)) {
      if (e.payload() instanceof TokenIssued) {
        shaById.put(((TokenIssued) e.payload()).tokenId(), ((TokenIssued) e.payload()).secretSha256());
      }
    }
    for (String s : secrets) {
      assertThat(shaById.get(idBySecret.get(s))).isEqualTo(sha256Hex(s));
    }
    List<String> records = new ArrayList<>();
    for (String topic : List.of(Topics.events(infra.topicPrefix()), Topics.telemetry(infra.topicPrefix()))) {
      Logs.readAll(infra.kafkaBootstrap(), topic, r -> records.add(new String(r.value(), StandardCharsets.UTF_8)
          + (r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8))));
    }
    String everything = String.join("\n", records);
    for (String s : secrets) {
      String body = s.substring("updraft_".length());
      assertThat(everything).as("the event log").doesNotContain(body);
      assertThat(logs).as("the logs").doesNotContain(body);
      assertThat(metrics).as("the metrics").doesNotContain(body);
    }
    assertThat(everything).doesNotContain(Services.ADMIN);
    assertThat(logs).doesNotContain(Services.ADMIN);
    System.out.printf("tokens: %d issued, all distinct, 256 random bits each (share of ones %.4f); none in %d event-log and"
        + " telemetry records, %d log lines (all levels) or the metrics%n", secrets.size(), (double) ones / bits, records.size(),
        logs.split("\n").length);
  }

  @Test
  void guessingIsThrottledPerAddressWith429AndCounted(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir,
        "auth-failure-limit", "5", "auth-failure-window", "3s");
    try {
      String base = "http://127.0.0.1:" + cp.port();
      String url = base + "/v1/apps";
      for (int i = 0; i < 10; i++) {
        assertThat(Api.get(url, null).status()).as("no token is not a guess").isEqualTo(401);
      }
      for (int i = 0; i < 5; i++) {
        Api.Resp r = Api.get(url, "updraft_guess-" + i);
        assertThat(r.status()).as("guess %d", i + 1).isEqualTo(401);
        assertThat(r.errorCode()).isEqualTo("unauthorized");
      }
      Api.Resp throttled = Api.get(url, "updraft_guess-6");
      assertThat(throttled.status()).isEqualTo(429);
      assertThat(throttled.errorCode()).isEqualTo("too-many-auth-failures");
      long retryAfter = Long.parseLong(throttled.header("retry-after"));
      assertThat(retryAfter).isBetween(1L, 3L);
      Api.Resp validToo = Api.get(url, Services.ADMIN);
      assertThat(validToo.status()).as("the admin token from the same address learns nothing").isEqualTo(429);
      String m = Metrics.scrape(base + "/metrics");
      assertThat(Metrics.value(m, "updraft_control_auth_failures_total")).isEqualTo(5);
      assertThat(Metrics.value(m, "updraft_control_auth_throttled_total")).isEqualTo(2);

      long t0 = System.nanoTime();
      Services.until("the address may try again after its window", () -> Api.get(url, Services.ADMIN).status() == 200, Duration.ofSeconds(30));
      System.out.printf("tokens: 5 invalid tokens within 3 s, then 429 with retry-after %d s (the valid admin token too), accepted"
          + " again after %d ms; failures and refusals counted%n", retryAfter, (System.nanoTime() - t0) / 1_000_000);
    } finally {
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  private static String sha256Hex(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }
}
