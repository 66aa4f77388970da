package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.events.CheckIn;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.ClientSelectionPolicy;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Client;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Outcome;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Update;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device that runs an update and is then answered "no update" keeps running it at its next cold start,
 * whatever made the answer "no update": a paused channel, a remap to a branch with nothing for its runtime
 * version, a branch rollout made without a runtime version onto such a branch, a deleted channel mapping, an
 * {@code updraft-channel} override naming a channel nobody mapped or one mapped to such a branch. Through the
 * real control plane (driven by the CLI), Kafka, edge and ingester; each answer is applied to a simulated
 * device by the client's own rules ({@link ClientSelectionPolicy}: {@code expo-manifest-filters} stored from
 * every answer, then the launcher's choice among the stored updates). A remap to a branch that has an update
 * still moves the device (the filters travel with that manifest), and the device route explains the "no
 * update" answers.
 */
@ExtendWith(RealInfrastructure.class)
class NoUpdateKeepsTheRunningUpdateIT {
  static final String APP = "keeps";
  static final String RUNTIME = "1.0.0";
  static final String EMBEDDED_ID = "00000000-0000-4000-8000-0000000000ee";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** An answer as the device reads it. */
  record Answer(int status, String filters, String manifest, String directive) {}

  @Test
  void aDeviceAnsweredNoUpdateLaunchesTheUpdateItRanBefore(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, dir)) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP);
      String main = publish(cli, "main", RUNTIME, Fixtures.update1());
      String beta = publish(cli, "beta", RUNTIME, Fixtures.update2());
      publish(cli, "next", "2.0.0", Fixtures.update1()); // a branch with nothing for runtime 1.0.0
      List<String> failures = new ArrayList<>();

      // a paused channel: the device took the 50 % branch rollout's update (beta), the channel is paused
      cli.json("channel", "--app", APP, "--channel", "production", "--branch", "main", "--rollout-branch", "beta",
          "--percentage", "50");
      Device paused = null;
      for (int i = 0; i < 64 && paused == null; i++) {
        Device d = new Device(stack, "production");
        if (d.takes(beta)) {
          paused = d;
        }
      }
      assertThat(paused).as("one of 64 devices falls in a 50 % branch rollout").isNotNull();
      cli.json("channels", "pause", "--app", APP, "--channel", "production");
      failures.addAll(paused.keepsAfterNoUpdate("paused channel", beta));

      // a remap to a branch with nothing for the device's runtime version
      cli.json("channel", "--app", APP, "--channel", "remap", "--branch", "main");
      Device remapped = new Device(stack, "remap");
      assertThat(remapped.takes(main)).isTrue();
      cli.json("channel", "--app", APP, "--channel", "remap", "--branch", "next");
      failures.addAll(remapped.keepsAfterNoUpdate("remap to a branch without the runtime", main));

      // a branch rollout made without a runtime version, onto a branch without the device's runtime version
      cli.json("channel", "--app", APP, "--channel", "rollout", "--branch", "main");
      Device rolledOut = new Device(stack, "rollout");
      assertThat(rolledOut.takes(main)).isTrue();
      cli.json("channel", "--app", APP, "--channel", "rollout", "--branch", "main", "--rollout-branch", "next",
          "--percentage", "100");
      failures.addAll(rolledOut.keepsAfterNoUpdate("runtime-less branch rollout", main));

      // a deleted mapping: the channel is then the branch of its own name, which does not exist
      cli.json("channel", "--app", APP, "--channel", "staging", "--branch", "beta");
      Device unmapped = new Device(stack, "staging");
      assertThat(unmapped.takes(beta)).isTrue();
      cli.json("channels", "delete", "--app", APP, "--channel", "staging");
      failures.addAll(unmapped.keepsAfterNoUpdate("deleted mapping", beta));

      // updraft-channel overrides naming a channel nobody mapped, and one mapped to a branch without the runtime
      cli.json("channel", "--app", APP, "--channel", "stable", "--branch", "main");
      cli.json("channel", "--app", APP, "--channel", "qa", "--branch", "next");
      Device surfer = new Device(stack, "stable");
      assertThat(surfer.takes(main)).isTrue();
      surfer.override = "qa-nobody-mapped";
      failures.addAll(surfer.keepsAfterNoUpdate("override to an unmapped channel", main));
      surfer.override = "qa";
      failures.addAll(surfer.keepsAfterNoUpdate("override to a channel without the runtime", main));
      assertThat(failures).as("devices sent off the update they ran").isEmpty();

      // the filters still travel with a manifest: a remap to a branch with an update moves the device there,
      // and at the next cold start the stored filters keep it off the other branch's newer update
      cli.json("channel", "--app", APP, "--channel", "remap", "--branch", "beta");
      Answer moved = remapped.awaitAnswer(a -> a.manifest() != null, "the remap to beta served");
      assertThat(moved.filters()).isEqualTo("branchname=\"beta\"");
      assertThat(remapped.client.check(moved.filters(), moved.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
      assertThat(remapped.client.coldStart().id()).isEqualTo(beta);

      // the device route says why, and that the device keeps what it runs
      String story = ChannelPauseIT.deviceRoute(stack, APP, paused.id, "paused");
      assertThat(story).contains("the channel is paused", "keeps running " + beta, "\"filters\":null");
      String story2 = ChannelPauseIT.deviceRoute(stack, APP, unmapped.id, "no-update-for-runtime");
      assertThat(story2).contains("no update for ios runtime version", "keeps running " + beta,
          "channel \\\"staging\\\" is not mapped (never, or its mapping was deleted)");
    }
  }

  /** Publishes {@code dist} on {@code branch}; returns the iOS update id. */
  static String publish(CliRunner cli, String branch, String runtime, Path dist) {
    for (JsonNode p : cli.json("publish", "--app", APP, "--branch", branch, "--runtime-version", runtime, "--dist",
        dist.toString(), "--no-progress").path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        return p.path("updateId").asText();
      }
    }
    throw new AssertionError("the publish on " + branch + " made no iOS update");
  }

  /** An iOS install of runtime 1.0.0 on {@code channel}, running its embedded bundle, with the client's rules. */
  static final class Device {
    final Stack stack;
    final String channel;
    final String id = UUID.randomUUID().toString();
    final Client client = new Client(Update.embedded(EMBEDDED_ID, Instant.parse("2020-01-01T00:00:00.000Z"), RUNTIME));
    String override;
    /** Requests made, each one check-in. */
    long asks;

    Device(Stack stack, String channel) {
      this.stack = stack;
      this.channel = channel;
    }

    /**
     * Asks until the edge serves a manifest (bounded); applies it; true when it was {@code updateId}'s and the
     * device launches it at its next cold start.
     */
    boolean takes(String updateId) throws Exception {
      Answer a = awaitAnswer(x -> x.manifest() != null || "noUpdateAvailable".equals(x.directive()), "an answer");
      if (a.manifest() == null || !a.manifest().contains(updateId)) {
        return false;
      }
      assertThat(client.check(a.filters(), a.manifest(), a.directive())).isEqualTo(Outcome.UPDATE_AVAILABLE);
      return client.coldStart().id().equals(updateId);
    }

    /**
     * Waits for a "no update" answer, applies it and cold-starts: what it launches, when that is not
     * {@code running}, is returned as a failure naming {@code what} and the filters the answer carried.
     */
    List<String> keepsAfterNoUpdate(String what, String running) throws Exception {
      // before the edge has applied the change, the device (which just took the newest update) is answered "no
      // update" too, as already running the newest: only the answer the change makes counts, which the device's
      // stored check-in tells by its reason once every request of the device is stored
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Answer a;
      while (true) {
        a = awaitAnswer(x -> x.directive() != null && x.directive().contains("noUpdateAvailable"), what + ": no update");
        String reason = stored().path("served").path("reason").asText();
        if (!CheckIn.REASON_ALREADY_LATEST.equals(reason)) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(what + ": still answered as already running the newest update after 60 s");
        }
      }
      Outcome o = client.check(a.filters(), a.manifest(), a.directive());
      assertThat(o).as(what).isEqualTo(Outcome.NO_UPDATE_AVAILABLE_ON_SERVER);
      Update next = client.coldStart();
      return next.id().equals(running) ? List.of()
          : List.of(what + ": launches " + next.id() + " instead of " + running + " (answer's filters: " + a.filters() + ")");
    }

    Answer awaitAnswer(Predicate<Answer> wanted, String what) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      Answer last = null;
      while (System.nanoTime() < deadline) {
        last = ask();
        if (last.status() == 200 && wanted.test(last)) {
          return last;
        }
        Thread.sleep(100);
      }
      throw new AssertionError(what + " within 30 s; last answer: " + last);
    }

    /**
     * The device's record from the device route once it holds every request the device made (bounded: the ingest
     * latency plus a margin); its check-in count must be exactly the requests.
     */
    JsonNode stored() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      String last = null;
      while (System.nanoTime() < deadline) {
        HttpResponse<String> r = Http.get(stack.controlUrl() + "/v1/apps/" + APP + "/devices/" + id,
            "authorization", "Bearer " + Stack.ADMIN_TOKEN);
        last = r.statusCode() + " " + r.body();
        if (r.statusCode() == 200) {
          JsonNode record = JSON.readTree(r.body());
          long checkIns = record.path("checkIns").asLong();
          assertThat(checkIns).as("check-ins stored for device %s", id).isLessThanOrEqualTo(asks);
          if (checkIns == asks) {
            return record;
          }
        }
        Thread.sleep(100);
      }
      throw new AssertionError("device " + id + ": " + asks + " check-ins not stored within 60 s; last: " + last);
    }

    Answer ask() throws Exception {
      asks++;
      List<String> h = new ArrayList<>(List.of("expo-platform", "ios", "expo-runtime-version", RUNTIME,
          "expo-channel-name", channel, "expo-protocol-version", "1", "eas-client-id", id, "accept", "multipart/mixed",
          "expo-embedded-update-id", EMBEDDED_ID, "expo-current-update-id", client.launched().id()));
      if (override != null) {
        h.addAll(List.of("expo-extra-params", "updraft-channel=\"" + override + "\""));
      }
      HttpResponse<byte[]> r = Http.getBytes(stack.edgeUrl() + "/apps/" + APP + "/manifest", h.toArray(String[]::new));
      String filters = r.headers().firstValue("expo-manifest-filters").orElse(null);
      if (r.statusCode() != 200) {
        return new Answer(r.statusCode(), filters, null, new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
      }
      MultipartBody b = StrictMultipartParser.parse(r.headers().firstValue("content-type").orElseThrow(), r.body());
      MultipartPart m = b.part("manifest");
      MultipartPart d = b.part("directive");
      return new Answer(200, filters, m == null ? null : m.bodyText(), d == null ? null : d.bodyText());
    }
  }
}
