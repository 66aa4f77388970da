package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.reliability.Metrics;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A channel paused with the CLI (an incident's kill switch, as EAS's {@code channel:pause}): the real edge
 * answers every device of that channel "no update" (and no roll back), a remap keeps the pause, the device
 * route says why the device got nothing, and a resume serves the update again. Through the real control
 * plane, Kafka, edge and ingester.
 */
@ExtendWith(RealInfrastructure.class)
class ChannelPauseIT {
  static final String APP = "pausing";

  @TempDir Path dir;

  @Test
  void aPausedChannelServesNoUpdateUntilItIsResumed(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, dir)) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP);
      String updateId = null;
      for (JsonNode p : cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist",
          Fixtures.update1().toString(), "--no-progress").path("platforms")) {
        updateId = p.path("platform").asText().equals("ios") ? p.path("updateId").asText() : updateId;
      }
      assertThat(updateId).as("the publish's iOS update").isNotNull();
      cli.json("channel", "--app", APP, "--channel", "production", "--branch", "main");
      String device = UUID.randomUUID().toString();
      String ios = updateId;
      awaitAnswer(stack, device, body -> body.contains(ios), "the update served on production");

      JsonNode paused = cli.json("channels", "pause", "--app", APP, "--channel", "production");
      assertThat(paused.path("paused").asBoolean()).isTrue();
      assertThat(paused.path("branch").asText()).isEqualTo("main");
      String answer = awaitAnswer(stack, device, body -> body.contains("noUpdateAvailable"), "no update on the paused channel");
      assertThat(answer).doesNotContain(ios).doesNotContain("launchAsset");
      assertThat(Metrics.value(Metrics.scrape(stack.edgeUrl() + "/metrics"), "updraft_edge_requests_total{outcome=\"channelPaused\"}"))
          .as("the edge counts the paused answer apart from other no-update answers").isEqualTo(1.0);
      assertThat(deviceRoute(stack, device)).as("the device route says why").contains("the channel is paused");
      // a channel of its own is not paused: the same branch through another channel still serves the update
      cli.json("channel", "--app", APP, "--channel", "staging", "--branch", "main");
      assertThat(awaitAnswer(stack, device, "staging", body -> body.contains(ios), "staging unpaused")).contains("launchAsset");

      // a remap keeps the pause; the listing marks it; pausing twice changes nothing
      assertThat(cli.json("channel", "--app", APP, "--channel", "production", "--branch", "main").path("paused").asBoolean()).isTrue();
      assertThat(cli.run("channels", "--app", APP).out()).contains("production -> main [paused: devices get no update]");
      assertThat(cli.json("channels", "pause", "--app", APP, "--channel", "production").path("paused").asBoolean()).isTrue();

      JsonNode resumed = cli.json("channels", "resume", "--app", APP, "--channel", "production");
      assertThat(resumed.path("paused").asBoolean()).isFalse();
      awaitAnswer(stack, device, body -> body.contains(ios), "the update served again after the resume");

      // a channel never mapped cannot be resumed; pause needs a channel
      CliRunner.Result unknown = cli.run("channels", "resume", "--app", APP, "--channel", "nightly");
      assertThat(unknown.status()).isNotZero();
      assertThat(unknown.err()).contains("channel-not-found", "nightly");
      CliRunner.Result bare = cli.run("channels", "pause", "--app", APP);
      assertThat(bare.status()).isNotZero();
      assertThat(bare.err()).contains("needs --channel");
    }
  }

  static String awaitAnswer(Stack stack, String device, Predicate<String> wanted, String what) throws Exception {
    return awaitAnswer(stack, device, "production", wanted, what);
  }

  /** Asks the edge as a device on embedded code of {@code channel} until its answer is {@code wanted} (bounded). */
  static String awaitAnswer(Stack stack, String device, String channel, Predicate<String> wanted, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = null;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = Http.get(stack.edgeUrl() + "/apps/" + APP + "/manifest", "expo-platform", "ios",
          "expo-runtime-version", "1.0.0", "expo-channel-name", channel, "expo-protocol-version", "1", "eas-client-id", device,
          "expo-embedded-update-id", "00000000-0000-4000-8000-0000000000ee", "accept", "multipart/mixed");
      last = r.statusCode() + " " + r.body();
      if (r.statusCode() == 200 && wanted.test(r.body())) {
        return r.body();
      }
      Thread.sleep(100);
    }
    throw new AssertionError(what + " within 30 s; last answer: " + last);
  }

  /** The device route's record of {@code device}, once its last check-in (the paused answer) is stored. */
  static String deviceRoute(Stack stack, String device) throws Exception {
    return deviceRoute(stack, APP, device, "paused");
  }

  /** The device route's record of {@code device} of {@code app}, once it holds {@code wanted} (bounded). */
  static String deviceRoute(Stack stack, String app, String device, String wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = null;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = Http.get(stack.controlUrl() + "/v1/apps/" + app + "/devices/" + device,
          "authorization", "Bearer " + Stack.ADMIN_TOKEN);
      last = r.statusCode() + " " + r.body();
      if (r.statusCode() == 200 && r.body().contains(wanted)) {
        return r.body();
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the device's check-in holding " + wanted + " within 60 s; last: " + last);
  }
}
