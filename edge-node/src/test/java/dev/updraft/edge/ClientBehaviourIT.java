package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.ClientSelectionPolicy;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Client;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Outcome;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Update;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What real devices do with the edge's answers after a crash and when their channel moves, against a live
 * edge fed by real Kafka: answers are read with the independent multipart readers, and what the device does
 * next is decided by {@link ClientSelectionPolicy}, the client's own rules (written from expo-updates' code:
 * a new update must pass the response's filters and be newer, unless the running one fails them; the
 * launcher takes the newest stored update that passes the stored filters; an update that failed to launch
 * never launches again). Keys and chains: {@code SigningIT}.
 */
@ExtendWith(RealInfrastructure.class)
class ClientBehaviourIT {
  static TestLog log;
  static Vertx vertx;
  static EdgeNode edge;
  static EdgeHttp http;
  static String bootstrap;
  static String prefix;
  static Instant t;

  @BeforeAll
  static void start(Infra infra) {
    bootstrap = infra.kafkaBootstrap();
    prefix = infra.topicPrefix();
    log = new TestLog(bootstrap, prefix);
    t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minus(1, ChronoUnit.HOURS);
    vertx = Edges.vertx();
    edge = Edges.startReady(vertx, log, "client-behaviour-edge");
    http = new EdgeHttp(edge.port());
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      Edges.await(edge.close());
    }
    if (vertx != null) {
      Edges.await(vertx.close());
    }
    if (log != null) {
      log.close();
    }
  }

  /** An answer as a device reads it: the filters header and the manifest or directive part. */
  record Answer(EdgeHttp.Response response, String filters, String manifest, String directive) {
    String manifestId() {
      return manifest == null ? null : Update.fromManifest(manifest).id();
    }

    String directiveType() {
      return directive == null ? null : json(directive).path("type").asText();
    }
  }

  static JsonNode json(String s) {
    try {
      return FixtureManifests.JSON.readTree(s);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + s, e);
    }
  }

  /** Asks the edge as {@code client} does (its current, embedded and failed ids), on {@code channel}. */
  static Answer ask(String app, String platform, String clientId, Client client, String channel) {
    Device d = Device.of(platform, 1).client(clientId).channel(channel).current(client.launched().id())
        .embedded(client.embedded().id()).failed(client.recentFailedUpdateIdsHeader());
    EdgeHttp.Response r = http.get("/apps/" + app + "/manifest", d.headers());
    MultipartBody b = Answers.multipart(r);
    MultipartPart m = b.part("manifest");
    MultipartPart dir = b.part("directive");
    return new Answer(r, r.header("expo-manifest-filters"), m == null ? null : m.bodyText(), dir == null ? null : dir.bodyText());
  }

  /** A fresh install of iOS or Android whose embedded update is older than every update published here. */
  static Client freshInstall() {
    return new Client(Update.embedded(UUID.randomUUID().toString(), t.minus(1, ChronoUnit.DAYS), "1.0.0"));
  }

  static UpdateGroup publish(String app, String branch, Path export, int secondsAfter) {
    UpdateGroup g = FixtureManifests.group(branch, "1.0.0", export, t.plusSeconds(secondsAfter), null, null);
    log.publish(app, new EventPayload.UpdatePublished(g));
    return g;
  }

  /**
   * The check-ins of {@code app} matching {@code which} in topic order, once they satisfy {@code done} (the
   * edge sends them in the background; one device's check-ins share a partition, so they are in order).
   */
  static List<CheckIn> checkIns(String app, Predicate<CheckIn> which, Predicate<List<CheckIn>> done) {
    List<List<CheckIn>> found = new ArrayList<>();
    waitFor("the check-ins of " + app, () -> {
      List<CheckIn> all = Telemetry.readAll(bootstrap, prefix).stream().map(Telemetry.Received::checkIn)
          .filter(x -> app.equals(x.appId()) && which.test(x)).toList();
      found.add(all);
      return done.test(all);
    });
    return found.get(found.size() - 1);
  }

  /**
   * Waits until {@code condition} holds; an answer it cannot read yet (the edge has not folded the app:
   * 404, or not the multipart it expects) counts as "not yet".
   */
  static void waitFor(String what, Supplier<Boolean> condition) {
    Edges.until(what, () -> {
      try {
        return condition.get();
      } catch (AssertionError notYet) {
        return false;
      }
    }, Duration.ofSeconds(60));
  }

  /**
   * Expo's error-recovery e2e: a fresh install takes the newest update, crashes on it, falls back to its
   * embedded bundle and reports the update failed; it is then served the earlier good update (not
   * noUpdateAvailable), takes it, and is never offered the failed one again. The check-ins name what was
   * passed over.
   */
  @Test
  void aDeviceWhoseNewestUpdateCrashedGetsTheNewestItDidNotReportAndNeverTheOneItReported() {
    String app = "recovery";
    log.publish(app, new EventPayload.AppCreated("Recovery"));
    UpdateGroup good = publish(app, "production", Fixtures.update1(), 0);
    UpdateGroup crashing = publish(app, "production", Fixtures.update2(), 60);
    for (String platform : List.of("ios", "android")) {
      String clientId = "recovery-" + platform + "-" + UUID.randomUUID();
      Client c = freshInstall();
      String newest = crashing.platform(platform).updateId();
      waitFor("the edge serves both updates of " + app, () -> newest.equals(ask(app, platform, clientId, c, "production").manifestId()));

      Answer first = ask(app, platform, clientId, c, "production");
      assertThat(first.manifestId()).isEqualTo(crashing.platform(platform).updateId());
      assertThat(c.check(first.filters(), first.manifest(), first.directive())).isEqualTo(Outcome.UPDATE_AVAILABLE);
      assertThat(c.coldStart().id()).isEqualTo(crashing.platform(platform).updateId());
      assertThat(c.crashOnLaunch()).as("error recovery: back to the embedded bundle").isEqualTo(c.embedded());
      assertThat(c.recentFailedUpdateIds()).containsExactly(crashing.platform(platform).updateId());

      Answer after = ask(app, platform, clientId, c, "production");
      assertThat(after.manifestId()).as("the earlier good update, not noUpdateAvailable")
          .isEqualTo(good.platform(platform).updateId());
      assertThat(c.check(after.filters(), after.manifest(), after.directive())).isEqualTo(Outcome.UPDATE_AVAILABLE);
      assertThat(c.coldStart().id()).isEqualTo(good.platform(platform).updateId());

      Answer settled = ask(app, platform, clientId, c, "production");
      assertThat(settled.directiveType()).isEqualTo("noUpdateAvailable");
      assertThat(settled.manifestId()).isNull();
      assertThat(c.check(settled.filters(), settled.manifest(), settled.directive())).isEqualTo(Outcome.NO_UPDATE_AVAILABLE_ON_SERVER);
      assertThat(c.coldStart().id()).isEqualTo(good.platform(platform).updateId());
    }
    List<CheckIn> mine = checkIns(app, x -> x.clientId() != null && x.clientId().startsWith("recovery-ios-"),
        all -> all.stream().anyMatch(x -> CheckIn.REASON_PREVIOUSLY_FAILED.equals(x.reason())));
    CheckIn fallback = mine.stream().filter(x -> CheckIn.REASON_SKIPPED_FAILED.equals(x.reason())).findFirst().orElseThrow();
    assertThat(fallback.outcome()).isEqualTo(CheckIn.OUTCOME_UPDATE);
    assertThat(fallback.servedUpdateId()).isEqualTo(good.platform("ios").updateId());
    assertThat(fallback.skippedUpdateIds()).containsExactly(crashing.platform("ios").updateId());
    CheckIn settled = mine.get(mine.size() - 1);
    assertThat(settled.reason()).isEqualTo(CheckIn.REASON_PREVIOUSLY_FAILED);
    assertThat(settled.skippedUpdateIds()).containsExactly(crashing.platform("ios").updateId());
  }

  /**
   * Under a per-update rollout, a device inside it that reported the new update failed gets the control
   * (what the other side gets), and a device outside it that reported the control failed gets the entry
   * below the control; neither is ever offered an update it reported.
   */
  @Test
  void underARolloutTheFallbackIsTheControlInsideAndTheEntryBelowItOutside() {
    String app = "recovery-rollout";
    log.publish(app, new EventPayload.AppCreated("Recovery under a rollout"));
    UpdateGroup g1 = publish(app, "production", Fixtures.update1(), 0);
    UpdateGroup g2 = publish(app, "production", Fixtures.update2(), 60);
    UpdateGroup g3 = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t.plusSeconds(120), null,
        new EventPayload.Rollout("r-recovery", 50, g2.groupId(), null));
    log.publish(app, new EventPayload.UpdatePublished(g3));
    String inside = null;
    String outside = null;
    for (int i = 0; inside == null || outside == null; i++) {
      String id = "rollout-device-" + i;
      if (Bucketing.inRollout(id, "r-recovery", 50)) {
        inside = inside == null ? id : inside;
      } else {
        outside = outside == null ? id : outside;
      }
    }
    String in = inside;
    Client a = freshInstall();
    waitFor("the rollout is served", () -> g3.platform("ios").updateId().equals(ask(app, "ios", in, a, "production").manifestId()));
    Answer rolled = ask(app, "ios", in, a, "production");
    assertThat(a.check(rolled.filters(), rolled.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    a.coldStart();
    a.crashOnLaunch();
    Answer control = ask(app, "ios", in, a, "production");
    assertThat(control.manifestId()).as("inside: the rollout's control").isEqualTo(g2.platform("ios").updateId());
    assertThat(a.check(control.filters(), control.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);

    Client b = freshInstall();
    Answer out = ask(app, "ios", outside, b, "production");
    assertThat(out.manifestId()).isEqualTo(g2.platform("ios").updateId());
    b.check(out.filters(), out.manifest(), null);
    b.coldStart();
    b.crashOnLaunch();
    Answer below = ask(app, "ios", outside, b, "production");
    assertThat(below.manifestId()).as("outside: below the control, never the rollout").isEqualTo(g1.platform("ios").updateId());
    assertThat(b.check(below.filters(), below.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    assertThat(b.coldStart().id()).isEqualTo(g1.platform("ios").updateId());
  }

  /**
   * A manifest answer (multipart and JSON) names the branch the device is mapped to in
   * {@code expo-manifest-filters}; the manifest passes it, and so does a fresh install's embedded update (it
   * has no metadata), which therefore takes the update as before. A "no update" answer carries none: clients
   * store the header from every answer, and the update the device runs must never be ruled out by one.
   */
  @Test
  void manifestAnswersNameTheDevicesBranchAndNoUpdateAnswersNameNone() {
    String app = "filters";
    log.publish(app, new EventPayload.AppCreated("Filters"));
    log.publish(app, new ChannelMapped("production", "main", null));
    UpdateGroup g = publish(app, "main", Fixtures.update1(), 0);
    Client c = freshInstall();
    waitFor("the edge serves " + app, () -> ask(app, "android", "f1", c, "production").manifest() != null);

    Answer a = ask(app, "android", "f1", c, "production");
    assertThat(a.filters()).isEqualTo("branchname=\"main\"");
    assertThat(ClientSelectionPolicy.filters(a.filters())).containsExactly(Map.entry("branchname", "main"));
    assertThat(ClientSelectionPolicy.matchesFilters(c.embedded(), ClientSelectionPolicy.filters(a.filters())))
        .as("the embedded update has no metadata: it passes").isTrue();
    assertThat(c.check(a.filters(), a.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    assertThat(c.coldStart().id()).isEqualTo(g.platform("android").updateId());
    Answer none = ask(app, "android", "f1", c, "production");
    assertThat(none.directiveType()).isEqualTo("noUpdateAvailable");
    assertThat(none.filters()).as("a directive-only 'no update' leaves the stored filters alone").isNull();
    assertThat(c.check(none.filters(), none.manifest(), none.directive())).isEqualTo(Outcome.NO_UPDATE_AVAILABLE_ON_SERVER);
    assertThat(c.storedFilters()).containsExactly(Map.entry("branchname", "main"));
    EdgeHttp.Response asJson = http.get("/apps/" + app + "/manifest", Device.of("ios", 1).accept("application/json").headers());
    assertThat(asJson.status()).isEqualTo(200);
    assertThat(asJson.header("expo-manifest-filters")).isEqualTo("branchname=\"main\"");
    EdgeHttp.Response unmapped = http.get("/apps/" + app + "/manifest", Device.of("ios", 1).channel("nothing-here").headers());
    assertThat(unmapped.status()).isEqualTo(200);
    assertThat(unmapped.header("expo-manifest-filters")).as("a channel never mapped, with nothing on the branch of its name")
        .isNull();
    assertThat(http.get("/apps/" + app + "/manifest", Device.of("ios", 1).runtime(null).headers()).header("expo-manifest-filters"))
        .as("refusals carry none").isNull();
  }

  /**
   * A branch rollout that ends sends its devices back to the channel's branch, whose newest update is
   * older than the one they run: the filters name that branch, the running update fails them, so the
   * client takes the older update (without filters it would have rejected it as not newer), and at the next
   * launch the stored filters keep it off the rollout branch's update.
   */
  @Test
  void whenABranchRolloutEndsItsDevicesGoBackToTheOlderUpdateOfTheChannelsBranch() {
    String app = "branch-rollout";
    log.publish(app, new EventPayload.AppCreated("Branch rollout"));
    UpdateGroup stable = publish(app, "main", Fixtures.update1(), 0);
    UpdateGroup beta = publish(app, "beta", Fixtures.update2(), 60);
    log.publish(app, new ChannelMapped("production", "main", new BranchRollout("br-end", "beta", 100, null)));
    Client c = freshInstall();
    waitFor("the branch rollout is served", () -> beta.platform("ios").updateId().equals(ask(app, "ios", "br1", c, "production").manifestId()));
    Answer in = ask(app, "ios", "br1", c, "production");
    assertThat(in.filters()).isEqualTo("branchname=\"beta\"");
    assertThat(c.check(in.filters(), in.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    assertThat(c.coldStart().id()).isEqualTo(beta.platform("ios").updateId());

    log.publish(app, new ChannelMapped("production", "main", null)); // the rollout ends: "revert"
    waitFor("the channel serves main again", () -> "branchname=\"main\"".equals(ask(app, "ios", "br1", c, "production").filters()));
    Answer back = ask(app, "ios", "br1", c, "production");
    assertThat(back.manifestId()).isEqualTo(stable.platform("ios").updateId());
    Update older = Update.fromManifest(back.manifest());
    assertThat(older.commitTime()).isBefore(c.launched().commitTime());
    assertThat(ClientSelectionPolicy.shouldLoadNewUpdate(older, c.launched(), null))
        .as("without filters the client keeps the newer update it runs").isFalse();
    assertThat(c.check(back.filters(), back.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    assertThat(c.coldStart().id()).as("the launcher skips the beta update: it fails the stored filters")
        .isEqualTo(stable.platform("ios").updateId());
  }

  /** A channel remapped to a branch whose newest update is older than what devices run moves them there. */
  @Test
  void aChannelRemappedToABranchWithAnOlderUpdateMovesItsDevices() {
    String app = "remap";
    log.publish(app, new EventPayload.AppCreated("Remap"));
    UpdateGroup old = publish(app, "stable", Fixtures.update1(), 0);
    UpdateGroup next = publish(app, "next", Fixtures.update2(), 60);
    log.publish(app, new ChannelMapped("production", "next", null));
    Client c = freshInstall();
    waitFor("next is served", () -> next.platform("android").updateId().equals(ask(app, "android", "rm1", c, "production").manifestId()));
    Answer onNext = ask(app, "android", "rm1", c, "production");
    c.check(onNext.filters(), onNext.manifest(), null);
    assertThat(c.coldStart().id()).isEqualTo(next.platform("android").updateId());

    log.publish(app, new ChannelMapped("production", "stable", null));
    waitFor("stable is served", () -> old.platform("android").updateId().equals(ask(app, "android", "rm1", c, "production").manifestId()));
    Answer moved = ask(app, "android", "rm1", c, "production");
    assertThat(moved.filters()).isEqualTo("branchname=\"stable\"");
    assertThat(c.check(moved.filters(), moved.manifest(), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    assertThat(c.coldStart().id()).isEqualTo(old.platform("android").updateId());
  }

  /**
   * A roll back to embedded carries the branch's filters: a device that runs the branch's update rolls back
   * (the directive is newer), and so does one that runs another branch's update (it fails the filters);
   * either way the launcher then takes the embedded update, re-stamped with the directive's commitTime.
   */
  @Test
  void aRollBackToEmbeddedIsTakenAndLaunchedWhicheverBranchTheDeviceRan() {
    String app = "rollback-filters";
    log.publish(app, new EventPayload.AppCreated("Rollback"));
    UpdateGroup main = publish(app, "main", Fixtures.update1(), 0);
    UpdateGroup other = publish(app, "other", Fixtures.update2(), 60);
    log.publish(app, new ChannelMapped("production", "main", null));
    log.publish(app, new ChannelMapped("staff", "other", null));
    Client onMain = freshInstall();
    Client onOther = freshInstall();
    waitFor("main is served", () -> main.platform("ios").updateId().equals(ask(app, "ios", "rb1", onMain, "production").manifestId()));
    // the staff mapping is a later event: it may reach the image after production's
    waitFor("other is served on staff", () -> other.platform("ios").updateId().equals(ask(app, "ios", "rb2", onOther, "staff").manifestId()));
    Answer m = ask(app, "ios", "rb1", onMain, "production");
    onMain.check(m.filters(), m.manifest(), null);
    onMain.coldStart();
    Answer o = ask(app, "ios", "rb2", onOther, "staff");
    onOther.check(o.filters(), o.manifest(), null);
    assertThat(onOther.coldStart().id()).isEqualTo(other.platform("ios").updateId());

    log.publish(app, new EventPayload.RolledBackToEmbedded(FixtureManifests.rollback("main", "1.0.0", Instant.now(), null)));
    // (before that, the device on main's update gets noUpdateAvailable, a directive too)
    waitFor("main rolled back", () -> "rollBackToEmbedded".equals(ask(app, "ios", "rb1", onMain, "production").directiveType()));
    Answer rb = ask(app, "ios", "rb1", onMain, "production");
    assertThat(rb.directiveType()).isEqualTo("rollBackToEmbedded");
    assertThat(rb.filters()).isEqualTo("branchname=\"main\"");
    assertThat(onMain.check(rb.filters(), null, rb.directive())).isEqualTo(Outcome.ROLL_BACK_TO_EMBEDDED);
    assertThat(onMain.coldStart()).isEqualTo(onMain.embedded());

    // the staff device switches its channel to production (setUpdateRequestHeadersOverride)
    Answer moved = ask(app, "ios", "rb2", onOther, "production");
    assertThat(moved.directiveType()).isEqualTo("rollBackToEmbedded");
    assertThat(onOther.check(moved.filters(), null, moved.directive())).isEqualTo(Outcome.ROLL_BACK_TO_EMBEDDED);
    assertThat(onOther.coldStart()).as("the other branch's update fails the stored filters").isEqualTo(onOther.embedded());
  }

  /**
   * A limit the filters cannot lift: an update published before manifests named their branch has no
   * metadata, so it passes every filter, and a device running it stays on it when its channel moves to an
   * older update. Republishing it (which names its branch) or publishing anew fixes it.
   */
  @Test
  void anUpdatePublishedWithoutBranchMetadataPassesEveryFilterSoItsDevicesStay() {
    String app = "legacy-metadata";
    log.publish(app, new EventPayload.AppCreated("Legacy"));
    UpdateGroup older = publish(app, "stable", Fixtures.update1(), 0);
    UpdateGroup legacy = FixtureManifests.group("next", "1.0.0", Fixtures.update2(), t.plusSeconds(60), List.of(), null, false);
    log.publish(app, new EventPayload.UpdatePublished(legacy));
    log.publish(app, new ChannelMapped("production", "next", null));
    Client c = freshInstall();
    waitFor("next is served", () -> legacy.platform("ios").updateId().equals(ask(app, "ios", "lg1", c, "production").manifestId()));
    Answer a = ask(app, "ios", "lg1", c, "production");
    assertThat(json(a.manifest()).path("metadata").size()).isZero();
    c.check(a.filters(), a.manifest(), null);
    c.coldStart();
    log.publish(app, new ChannelMapped("production", "stable", null));
    waitFor("stable is served", () -> older.platform("ios").updateId().equals(ask(app, "ios", "lg1", c, "production").manifestId()));
    Answer moved = ask(app, "ios", "lg1", c, "production");
    assertThat(c.check(moved.filters(), moved.manifest(), null)).isEqualTo(Outcome.UPDATE_REJECTED_BY_SELECTION_POLICY);
    assertThat(c.coldStart().id()).isEqualTo(legacy.platform("ios").updateId());
  }

  /**
   * QA branch surfing in a release build: {@code Updates.setExtraParamAsync("updraft-channel", "qa")} (no rebuild,
   * no request-header override, anti-bricking measures left on) makes the edge answer the device for channel qa,
   * whatever its {@code expo-channel-name}; setting it to null (the member gone) puts it back.
   */
  @Test
  void aReleaseBuildMovesToAnotherChannelThroughItsExtraParamsAndBackWhenTheyAreCleared() {
    String app = "surf";
    log.publish(app, new EventPayload.AppCreated("Branch surfing"));
    UpdateGroup stable = publish(app, "production", Fixtures.update1(), 0);
    UpdateGroup qa = publish(app, "qa-build", Fixtures.update2(), 60);
    log.publish(app, new ChannelMapped("qa", "qa-build", null));
    String stableIos = stable.platform("ios").updateId();
    String qaIos = qa.platform("ios").updateId();
    // an unmapped channel already answers (no update, from a branch "qa"): wait for the mapping's update
    waitFor("the qa channel serves its branch", () -> qaIos.equals(ask(app, "ios", "surf-0", freshInstall(), "qa").manifestId()));

    // Updates.setExtraParamAsync("updraft-channel", "qa") in a build whose channel is production
    Device surfer = Device.ios().client("surf-1").extraParams("debug=\"1\", updraft-channel=\"qa\"");
    EdgeHttp.Response onQa = http.get("/apps/" + app + "/manifest", surfer.headers());
    assertThat(Answers.multipart(onQa).part("manifest").bodyText()).contains(qaIos);
    assertThat(onQa.header("expo-manifest-filters")).isEqualTo("branchname=\"qa-build\"");

    // other extra params, a member that is not a string, or a dictionary that does not parse: its own channel
    for (String other : new String[] {"debug=\"1\"", "updraft-channel=?1", "updraft-channel=\"unterminated", "updraft-channel=\"\""}) {
      EdgeHttp.Response own = http.get("/apps/" + app + "/manifest", Device.ios().client("surf-2").extraParams(other).headers());
      assertThat(Answers.multipart(own).part("manifest").bodyText()).as(other).contains(stableIos);
    }
    // a channel nobody mapped is the branch of its name, as for the channel header
    EdgeHttp.Response unmapped = http.get("/apps/" + app + "/manifest", Device.ios().client("surf-3").extraParams("updraft-channel=\"qa-build\"").headers());
    assertThat(Answers.multipart(unmapped).part("manifest").bodyText()).contains(qaIos);

    List<CheckIn> mine = checkIns(app, x -> "surf-1".equals(x.clientId()), all -> !all.isEmpty());
    assertThat(mine.get(0).channel()).as("the check-in names the channel the device was answered for").isEqualTo("qa");
    assertThat(mine.get(0).branch()).isEqualTo("qa-build");
  }

  /**
   * A build without {@code updates.requestHeaders} sends no channel: refused (and counted as a refusal)
   * until the app has a default channel, then answered for it; its check-in says it sent none.
   */
  @Test
  void requestsWithoutAChannelAreAnsweredForTheAppsDefaultChannel() {
    String app = "deaf";
    log.publish(app, new EventPayload.AppCreated("Deaf build"));
    UpdateGroup g = publish(app, "production", Fixtures.update1(), 0);
    waitFor("the edge knows " + app, () -> http.get("/apps/" + app + "/manifest", Device.ios().headers()).status() == 200);
    EdgeHttp.Response refused = http.get("/apps/" + app + "/manifest", Device.ios().channel(null).client("deaf-1").headers());
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.errorCode()).isEqualTo("missing-channel");
    assertThat(refused.json().path("error").path("message").asText()).contains("--default-channel");

    log.publish(app, new EventPayload.AppUpdated("production"));
    waitFor("the default channel applies", () -> http.get("/apps/" + app + "/manifest", Device.ios().channel(null).headers()).status() == 200);
    EdgeHttp.Response served = http.get("/apps/" + app + "/manifest", Device.ios().channel(null).client("deaf-2").headers());
    assertThat(Answers.multipart(served).part("manifest").bodyText()).contains(g.platform("ios").updateId());
    assertThat(served.header("expo-manifest-filters")).isEqualTo("branchname=\"production\"");

    log.publish(app, new EventPayload.AppUpdated(null));
    waitFor("the default channel is gone", () -> http.get("/apps/" + app + "/manifest", Device.ios().channel(null).headers()).status() == 400);
    List<CheckIn> mine = checkIns(app, x -> "deaf-1".equals(x.clientId()) || "deaf-2".equals(x.clientId()),
        all -> all.stream().map(CheckIn::clientId).distinct().count() == 2);
    CheckIn refusedCheckIn = mine.stream().filter(x -> "deaf-1".equals(x.clientId())).findFirst().orElseThrow();
    assertThat(refusedCheckIn.outcome()).isEqualTo(CheckIn.OUTCOME_ERROR);
    assertThat(refusedCheckIn.reason()).isEqualTo("missing-channel");
    assertThat(refusedCheckIn.runtimeVersion()).isEqualTo("1.0.0");
    CheckIn servedCheckIn = mine.stream().filter(x -> "deaf-2".equals(x.clientId())).findFirst().orElseThrow();
    assertThat(servedCheckIn.channel()).as("what the device sent").isNull();
    assertThat(servedCheckIn.branch()).isEqualTo("production");
    assertThat(servedCheckIn.outcome()).isEqualTo(CheckIn.OUTCOME_UPDATE);
  }
}
