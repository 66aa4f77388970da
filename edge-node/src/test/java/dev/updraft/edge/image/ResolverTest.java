package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.RolloutEvents.Rollout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The per-request decision on hand-made images. */
class ResolverTest {

  private static AppImage app(Scenario s) {
    return Scenario.replay(ResolveImage.EMPTY, s.events).app(Scenario.APP);
  }

  private static Decision ios(AppImage app, String channel, String client, String current, String embedded,
      List<String> failed, int protocol) {
    return Resolver.resolve(app, Platforms.IOS, Scenario.RTV, channel, client, current, embedded, failed, protocol);
  }

  private static Scenario twoUpdates() {
    return new Scenario()
        .add(new EventPayload.AppCreated("Demo"))
        .add(new EventPayload.UpdatePublished(Scenario.group("g1", "production", null)))
        .add(new EventPayload.UpdatePublished(Scenario.group("g2", "production", null)));
  }

  @Test
  void unmappedChannelServesTheBranchOfItsName() {
    Decision d = ios(app(twoUpdates()), "production", "c", null, null, List.of(), 1);
    assertThat(d.branch()).isEqualTo("production");
    assertThat(d.servedUpdateId()).isEqualTo("g2-ios");
    assertThat(d.outcome()).isEqualTo(CheckIn.OUTCOME_UPDATE);
  }

  @Test
  void deviceOnTheLatestGetsNoUpdateInV1AndTheManifestAgainInV0() {
    AppImage app = app(twoUpdates());
    Decision v1 = ios(app, "production", "c", "G2-IOS", null, List.of(), 1);
    assertThat(v1.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(v1.reason()).isEqualTo(CheckIn.REASON_ALREADY_LATEST);
    assertThat(v1.prepared()).isSameAs(app.noUpdate());
    Decision v0 = ios(app, "production", "c", "g2-ios", null, List.of(), 0);
    assertThat(v0.kind()).isEqualTo(Decision.Kind.MANIFEST);
    assertThat(v0.servedUpdateId()).isEqualTo("g2-ios");
    assertThat(v0.outcome()).isEqualTo(CheckIn.OUTCOME_NO_UPDATE);
    assertThat(v0.reason()).isEqualTo(CheckIn.REASON_PROTOCOL0_RESEND);
  }

  @Test
  void failedUpdateIsNeverOfferedAgain() {
    AppImage app = app(twoUpdates());
    Decision v1 = ios(app, "production", "c", "g1-ios", null, List.of("x", "g2-ios"), 1);
    assertThat(v1.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(v1.reason()).isEqualTo(CheckIn.REASON_PREVIOUSLY_FAILED);
    Decision v0 = ios(app, "production", "c", "g1-ios", null, List.of("g2-ios"), 0);
    assertThat(v0.kind()).isEqualTo(Decision.Kind.NOT_SERVABLE_V0);
    assertThat(v0.errorCode()).isEqualTo(CheckIn.REASON_PREVIOUSLY_FAILED);
    assertThat(v0.servedUpdateId()).isNull();
  }

  @Test
  void aFreshInstallWhoseNewestUpdateCrashedGetsTheNewestItDidNotReport() {
    // Expo's error-recovery e2e: the newest update crashed, the device fell back to its embedded bundle
    AppImage app = app(twoUpdates());
    Decision d = ios(app, "production", "c", "emb", "emb", List.of("g2-ios"), 1);
    assertThat(d.kind()).isEqualTo(Decision.Kind.MANIFEST);
    assertThat(d.servedUpdateId()).isEqualTo("g1-ios");
    assertThat(d.outcome()).isEqualTo(CheckIn.OUTCOME_UPDATE);
    assertThat(d.reason()).isEqualTo(CheckIn.REASON_SKIPPED_FAILED);
    assertThat(d.skippedUpdateIds()).containsExactly("g2-ios");
    Decision v0 = ios(app, "production", "c", "emb", "emb", List.of("G2-IOS"), 0);
    assertThat(v0.servedUpdateId()).isEqualTo("g1-ios");
    assertThat(ios(app, "production", "c", "emb", "emb", List.of(), 1).skippedUpdateIds()).isEmpty();
  }

  @Test
  void everyEntryReportedFailedGivesNoUpdateNamingThemAll() {
    Decision d = ios(app(twoUpdates()), "production", "c", "emb", "emb", List.of("g1-ios", "g2-ios"), 1);
    assertThat(d.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(d.reason()).isEqualTo(CheckIn.REASON_PREVIOUSLY_FAILED);
    assertThat(d.skippedUpdateIds()).containsExactly("g2-ios", "g1-ios");
  }

  @Test
  void insideARolloutTheFallbackIsTheControlAndOutsideItTheEntryBelowTheControl() {
    AppImage app = app(twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r3", 50, "g2", null)))));
    String inside = null;
    String outside = null;
    for (int i = 0; inside == null || outside == null; i++) {
      String c = "client-" + i;
      if (Bucketing.inRollout(c, "r3", 50)) {
        inside = inside == null ? c : inside;
      } else {
        outside = outside == null ? c : outside;
      }
    }
    Decision in = ios(app, "production", inside, "emb", "emb", List.of("g3-ios"), 1);
    assertThat(in.servedUpdateId()).isEqualTo("g2-ios");
    assertThat(in.skippedUpdateIds()).containsExactly("g3-ios");
    Decision out = ios(app, "production", outside, "emb", "emb", List.of("g2-ios"), 1);
    assertThat(out.servedUpdateId()).isEqualTo("g1-ios");
    assertThat(out.skippedUpdateIds()).containsExactly("g2-ios");
    Decision outNotFailed = ios(app, "production", outside, "emb", "emb", List.of("g3-ios"), 1);
    assertThat(outNotFailed.servedUpdateId()).as("a failed id the device's side never serves changes nothing")
        .isEqualTo("g2-ios");
    assertThat(outNotFailed.skippedUpdateIds()).isEmpty();
  }

  @Test
  void theWalkFollowsTheRollbackRulesWhenItReachesARollBackToEmbedded() {
    AppImage app = app(twoUpdates()
        .add(new EventPayload.RolledBackToEmbedded(Scenario.rollback("g3", "production")))
        .add(new EventPayload.UpdatePublished(Scenario.group("g4", "production", null))));
    Decision d = ios(app, "production", "c", "g2-ios", "emb", List.of("g4-ios"), 1);
    assertThat(d.kind()).isEqualTo(Decision.Kind.ROLLBACK);
    assertThat(d.servedGroupId()).isEqualTo("g3");
    assertThat(d.skippedUpdateIds()).containsExactly("g4-ios");
    Decision onEmbedded = ios(app, "production", "c", "emb", "emb", List.of("g4-ios"), 1);
    assertThat(onEmbedded.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(onEmbedded.reason()).isEqualTo(CheckIn.REASON_ALREADY_EMBEDDED);
  }

  @Test
  void theWalkLooksAtTheNewestEntriesOnlyHoweverLongTheLine() {
    Scenario s = new Scenario().add(new EventPayload.AppCreated("Demo"));
    for (int i = 1; i <= 20; i++) {
      s.add(new EventPayload.UpdatePublished(Scenario.group("g" + i, "production", null)));
    }
    AppImage app = app(s);
    List<String> failed = new ArrayList<>();
    for (int i = 20; i > 20 - Resolver.FALLBACK_DEPTH + 1; i--) {
      failed.add("g" + i + "-ios");
    }
    Decision d = ios(app, "production", "c", "emb", "emb", failed, 1);
    assertThat(d.servedUpdateId()).isEqualTo("g" + (20 - Resolver.FALLBACK_DEPTH + 1) + "-ios");
    assertThat(d.skippedUpdateIds()).hasSize(Resolver.FALLBACK_DEPTH - 1);
  }

  @Test
  void unknownRuntimeOrChannelGetsNoUpdateNeverAnotherRuntimesManifest() {
    AppImage app = app(twoUpdates());
    Decision rtv = Resolver.resolve(app, Platforms.IOS, "1.0.1", "production", "c", null, null, List.of(), 1);
    assertThat(rtv.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(rtv.reason()).isEqualTo(CheckIn.REASON_NO_UPDATE_FOR_RUNTIME);
    Decision channel = ios(app, "staging", "c", null, null, List.of(), 1);
    assertThat(channel.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(channel.branch()).isEqualTo("staging");
    Decision v0 = Resolver.resolve(app, Platforms.IOS, "1.0.1", "production", "c", null, null, List.of(), 0);
    assertThat(v0.kind()).isEqualTo(Decision.Kind.NOT_SERVABLE_V0);
    assertThat(v0.errorCode()).isEqualTo(CheckIn.REASON_NO_UPDATE_FOR_RUNTIME);
  }

  @Test
  void rollbackIsADirectiveUnlessTheDeviceRunsItsEmbeddedBundle() {
    AppImage app = app(twoUpdates().add(new EventPayload.RolledBackToEmbedded(Scenario.rollback("g3", "production"))));
    Decision d = ios(app, "production", "c", "g2-ios", "emb", List.of(), 1);
    assertThat(d.kind()).isEqualTo(Decision.Kind.ROLLBACK);
    assertThat(d.outcome()).isEqualTo(CheckIn.OUTCOME_ROLLBACK);
    assertThat(d.servedGroupId()).isEqualTo("g3");
    assertThat(d.servedUpdateId()).isNull();
    Decision embedded = ios(app, "production", "c", "emb", "EMB", List.of(), 1);
    assertThat(embedded.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(embedded.reason()).isEqualTo(CheckIn.REASON_ALREADY_EMBEDDED);
    Decision v0 = ios(app, "production", "c", "g2-ios", "emb", List.of(), 0);
    assertThat(v0.kind()).isEqualTo(Decision.Kind.NOT_SERVABLE_V0);
    assertThat(v0.errorCode()).isEqualTo(Resolver.V0_ROLLBACK);
  }

  @Test
  void deviceWithoutClientIdIsNeverInAPartialRolloutButIsAtHundred() {
    AppImage partial = app(twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r3", 99, "g2", null)))));
    Decision d = ios(partial, "production", null, null, null, List.of(), 1);
    assertThat(d.servedUpdateId()).isEqualTo("g2-ios");
    assertThat(d.rolloutBucket()).isEqualTo(-1);
    AppImage full = app(twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r3", 100, "g2", null)))));
    assertThat(ios(full, "production", null, null, null, List.of(), 1).servedUpdateId()).isEqualTo("g3-ios");
  }

  @Test
  void rolloutWithoutControlGivesDevicesOutsideNoUpdate() {
    AppImage app = app(new Scenario()
        .add(new EventPayload.UpdatePublished(Scenario.group("g1", "production", new Rollout("r1", 0, null, null)))));
    Decision d = ios(app, "production", "c", null, null, List.of(), 1);
    assertThat(d.kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(d.reason()).isEqualTo(CheckIn.REASON_NO_UPDATE_FOR_RUNTIME);
    assertThat(d.rolloutBucket()).isEqualTo(Bucketing.bucket("c", "r1"));
  }

  @Test
  void perUpdateRolloutSharesAreWithinOnePointOverTenThousandIds() {
    for (int pct : new int[] {1, 10, 25, 50, 90}) {
      AppImage app = app(twoUpdates()
          .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r-" + pct, pct, "g2", null)))));
      int inside = 0;
      for (String id : randomIds(10_000, pct)) {
        Decision d = ios(app, "production", id, null, null, List.of(), 1);
        if ("g3-ios".equals(d.servedUpdateId())) {
          inside++;
        } else {
          assertThat(d.servedUpdateId()).isEqualTo("g2-ios"); // outside: the control update
        }
      }
      assertThat(inside / 100.0).as("share at %d %%", pct).isBetween(pct - 1.0, pct + 1.0);
    }
  }

  @Test
  void rolloutDecisionIsDeterministicMonotonicAndAgreesWithBucketing() {
    List<String> ids = randomIds(2_000, 7);
    Set<String> previous = new HashSet<>();
    for (int pct = 0; pct <= 100; pct += 5) {
      AppImage app = app(twoUpdates()
          .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r", pct, "g2", null)))));
      Set<String> inside = new HashSet<>();
      for (String id : ids) {
        Decision d = ios(app, "production", id, null, null, List.of(), 1);
        Decision again = ios(app, "production", id, null, null, List.of(), 1);
        assertThat(again.servedUpdateId()).isEqualTo(d.servedUpdateId());
        boolean in = "g3-ios".equals(d.servedUpdateId());
        assertThat(in).as("id=%s pct=%d", id, pct).isEqualTo(Bucketing.inRollout(id, "r", pct));
        if (in) {
          inside.add(id);
        }
      }
      assertThat(inside).as("raising to %d %% only adds devices", pct).containsAll(previous);
      previous = inside;
    }
    assertThat(previous).hasSize(ids.size());
  }

  @Test
  void branchRolloutSendsItsShareToTheSecondBranchOnlyForItsRuntime() {
    Scenario s = new Scenario()
        .add(new EventPayload.UpdatePublished(Scenario.group("main1", "main", null)))
        .add(new EventPayload.UpdatePublished(Scenario.group("beta1", "beta", null)))
        .add(new EventPayload.UpdatePublished(Scenario.group("main2", "main", "2.0.0", null)))
        .add(new EventPayload.UpdatePublished(Scenario.group("beta2", "beta", "2.0.0", null)))
        .add(new EventPayload.ChannelMapped("production", "main", new BranchRollout("br", "beta", 30, "1.0.0")));
    AppImage app = app(s);
    int beta = 0;
    List<String> ids = randomIds(10_000, 3);
    for (String id : ids) {
      Decision d = ios(app, "production", id, null, null, List.of(), 1);
      boolean in = Bucketing.inRollout(id, "br", 30);
      assertThat(d.inBranchRollout()).isEqualTo(in);
      assertThat(d.branch()).isEqualTo(in ? "beta" : "main");
      assertThat(d.servedUpdateId()).isEqualTo(in ? "beta1-ios" : "main1-ios");
      beta += in ? 1 : 0;
      Decision other = Resolver.resolve(app, Platforms.IOS, "2.0.0", "production", id, null, null, List.of(), 1);
      assertThat(other.servedUpdateId()).isEqualTo("main2-ios"); // the rollout is for runtime 1.0.0 only
    }
    assertThat(beta / 100.0).isBetween(29.0, 31.0);
    assertThat(ios(app, "production", null, null, null, List.of(), 1).branch()).isEqualTo("main");
  }

  @Test
  void channelRemapTakesEffectForTheSameDevice() {
    Scenario s = twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("s1", "staging", null)))
        .add(new EventPayload.ChannelMapped("production", "staging", null));
    assertThat(ios(app(s), "production", "c", null, null, List.of(), 1).servedUpdateId()).isEqualTo("s1-ios");
  }

  @Test
  void aPausedChannelAnswersNoUpdateToEveryDeviceAndAResumeServesThemAgain() {
    Scenario s = twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("b1", "beta", null)))
        .add(new EventPayload.ChannelMapped("production", "production", new BranchRollout("br", "beta", 50, null)).withPaused(true));
    AppImage paused = app(s);
    for (String id : randomIds(200, 5)) {
      Decision d = ios(paused, "production", id, "g1-ios", null, List.of(), 1);
      assertThat(d.kind()).as("device %s", id).isEqualTo(Decision.Kind.NO_UPDATE);
      assertThat(d.reason()).isEqualTo(CheckIn.REASON_CHANNEL_PAUSED);
      assertThat(d.prepared()).isSameAs(paused.noUpdate());
    }
    Decision v0 = ios(paused, "production", "c", "g1-ios", null, List.of(), 0);
    assertThat(v0.kind()).isEqualTo(Decision.Kind.NOT_SERVABLE_V0);
    assertThat(v0.errorCode()).isEqualTo(CheckIn.REASON_CHANNEL_PAUSED);
    // no roll back either: a device keeps what it runs; another channel on the same branch is not paused
    s.add(new EventPayload.RolledBackToEmbedded(Scenario.rollback("g3", "production")))
        .add(new EventPayload.ChannelMapped("other", "production", null));
    AppImage rolledBack = app(s);
    assertThat(ios(rolledBack, "production", "c", "g2-ios", "emb", List.of(), 1).kind()).isEqualTo(Decision.Kind.NO_UPDATE);
    assertThat(ios(rolledBack, "other", "c", "g2-ios", "emb", List.of(), 1).kind()).isEqualTo(Decision.Kind.ROLLBACK);

    // resumed with the same rollout: each device back on the branch of its bucket
    AppImage resumed = app(s.add(new EventPayload.ChannelMapped("production", "production", new BranchRollout("br", "beta", 50, null))));
    for (String id : randomIds(200, 5)) {
      boolean in = Bucketing.inRollout(id, "br", 50);
      Decision d = ios(resumed, "production", id, "g2-ios", "emb", List.of(), 1);
      assertThat(d.branch()).as("device %s", id).isEqualTo(in ? "beta" : "production");
      assertThat(d.kind()).as("device %s", id).isEqualTo(in ? Decision.Kind.MANIFEST : Decision.Kind.ROLLBACK);
    }
  }

  @Test
  void theBoundaryDevicesOfTheFixedVectorsFallOnTheirSide() {
    // device-396 has bucket 999 and device-29537 bucket 1000 in rollout "boundary" (BucketingTest)
    AppImage app = app(twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("boundary", 10, "g2", null)))));
    Decision in = ios(app, "production", "DEVICE-396".toLowerCase(java.util.Locale.ROOT), null, null, List.of(), 1);
    Decision out = ios(app, "production", "device-29537", null, null, List.of(), 1);
    assertThat(in.rolloutBucket()).isEqualTo(999);
    assertThat(in.servedUpdateId()).isEqualTo("g3-ios");
    assertThat(out.rolloutBucket()).isEqualTo(1000);
    assertThat(out.servedUpdateId()).isEqualTo("g2-ios");
  }

  @Test
  void aRolloutNamingTheFirstAlgorithmDecidesAsOneNamingNone() {
    AppImage absent = app(twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r", 40, "g2", null, null))))
        .add(new EventPayload.ChannelMapped("beta-channel", "production", new BranchRollout("br", "beta", 40, null, null))));
    AppImage named = app(twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r", 40, "g2", null, "sha256-v1"))))
        .add(new EventPayload.ChannelMapped("beta-channel", "production",
            new BranchRollout("br", "beta", 40, null, "sha256-v1"))));
    for (String id : randomIds(2_000, 11)) {
      Decision a = ios(absent, "production", id, null, null, List.of(), 1);
      Decision n = ios(named, "production", id, null, null, List.of(), 1);
      assertThat(n.servedUpdateId()).isEqualTo(a.servedUpdateId());
      assertThat(n.rolloutBucket()).isEqualTo(a.rolloutBucket()).isEqualTo(Bucketing.bucket(id, "r"));
      assertThat(ios(named, "beta-channel", id, null, null, List.of(), 1).branch())
          .isEqualTo(ios(absent, "beta-channel", id, null, null, List.of(), 1).branch())
          .isEqualTo(Bucketing.inRollout(id, "br", 40) ? "beta" : "production");
    }
  }

  @Test
  void anUnknownAlgorithmPutsEveryDeviceOutsideAPerUpdateRolloutBelowHundred() {
    Scenario s = twoUpdates()
        .add(new EventPayload.UpdatePublished(Scenario.group("g3", "production", new Rollout("r", 99, "g2", null, "murmur3-v9"))));
    AppImage partial = app(s);
    for (String id : randomIds(500, 5)) {
      Decision d = ios(partial, "production", id, null, null, List.of(), 1);
      assertThat(d.servedUpdateId()).as("id=%s", id).isEqualTo("g2-ios"); // the control group
      assertThat(d.rolloutBucket()).isEqualTo(-1); // no bucket recorded: none could be computed
    }
    AppImage full = app(s.add(new EventPayload.RolloutChanged("g3", "r", 100, null)));
    assertThat(ios(full, "production", "c", null, null, List.of(), 1).servedUpdateId()).isEqualTo("g3-ios");
  }

  @Test
  void anUnknownAlgorithmKeepsEveryDeviceOnTheChannelsBranchBelowHundred() {
    Scenario s = new Scenario()
        .add(new EventPayload.UpdatePublished(Scenario.group("main1", "main", null)))
        .add(new EventPayload.UpdatePublished(Scenario.group("beta1", "beta", null)))
        .add(new EventPayload.ChannelMapped("production", "main", new BranchRollout("br", "beta", 99, null, "murmur3-v9")));
    AppImage partial = app(s);
    for (String id : randomIds(500, 6)) {
      Decision d = ios(partial, "production", id, null, null, List.of(), 1);
      assertThat(d.branch()).isEqualTo("main");
      assertThat(d.inBranchRollout()).isFalse();
    }
    AppImage full = app(s.add(new EventPayload.ChannelMapped("production", "main",
        new BranchRollout("br", "beta", 100, null, "murmur3-v9"))));
    assertThat(ios(full, "production", "c", null, null, List.of(), 1).servedUpdateId()).isEqualTo("beta1-ios");
  }

  private static List<String> randomIds(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(new UUID(r.nextLong(), r.nextLong()).toString());
    }
    return ids;
  }
}
