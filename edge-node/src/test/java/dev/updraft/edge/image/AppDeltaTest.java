package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.EventType;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One event of every {@link EventType} replayed into an app, each checked for the effect its fold
 * documents. A type added to events-schema fails {@link #everyEventTypeHasACase()} until it gets a case
 * here (and {@link AppDelta#replay} does not compile until it gets one there).
 */
class AppDeltaTest {

  /** Events before the one under test, the event, and what it must have done. */
  private record Case(List<EventPayload> before, EventPayload event, Effect effect) {}

  @FunctionalInterface
  private interface Effect {
    /** {@code before} is null when the app did not exist. */
    void check(AppImage before, AppImage after);
  }

  private static final String SIG = "sig=\"AAAA\", keyid=\"main\"";

  private static List<EventPayload> rollingOut() {
    return List.of(
        new EventPayload.UpdatePublished(Scenario.group("g1", "main", null)),
        new EventPayload.UpdatePublished(Scenario.group("g2", "main", new Rollout("r2", 30, "g1", null))));
  }

  private static final String LAUNCH = "a".repeat(64);
  private static final String BASE = "b".repeat(64);
  private static final String PATCH = "c".repeat(64);
  private static final Map<EventType, Case> CASES = new EnumMap<>(EventType.class);

  static {
    CASES.put(EventType.APP_CREATED, new Case(List.of(), new EventPayload.AppCreated("Demo"), (before, after) -> {
      assertThat(before).isNull();
      assertThat(after.appId()).isEqualTo(Scenario.APP);
      assertThat(after.groupCount()).isZero();
      assertThat(after.signs()).isFalse();
      assertThat(after.channels).isEmpty();
      assertThat(serves(after, "main")).isNull();
    }));
    CASES.put(EventType.TOKEN_ISSUED, new Case(List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.TokenIssued("t1", "publish", "00", "ci", null), AppDeltaTest::onlyTheSequenceMoved));
    CASES.put(EventType.TOKEN_REVOKED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null)),
            new EventPayload.TokenIssued("t1", "publish", "00", "ci", null)),
        new EventPayload.TokenRevoked("t1"), AppDeltaTest::onlyTheSequenceMoved));
    CASES.put(EventType.SIGNING_KEY_REGISTERED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.SigningKeyRegistered("main", "PEM", "abc", "{\"type\":\"noUpdateAvailable\"}", SIG,
            List.of(new Renewal("g1-ios", Scenario.body("g1-ios") + " ", SIG))),
        (before, after) -> {
          assertThat(before.signs()).isFalse();
          assertThat(after.signs()).isTrue();
          assertThat(after.keyId()).isEqualTo("main");
          assertThat(after.noUpdate().signature().toString()).isEqualTo(SIG);
          EventPayload.PlatformUpdate ios = after.groups.get("g1").group().platform("ios");
          assertThat(after.prepared.get("g1-ios").body()).as("the prepared entry holds the body").isEqualTo(Scenario.body("g1-ios") + " ");
          assertThat(ios.body()).as("held once: the group lets its copy go").isNull();
          assertThat(ios.signature()).isEqualTo(SIG);
          assertThat(after.groups.get("g1").group().platform("android"))
              .isEqualTo(before.groups.get("g1").group().platform("android"));
        }));
    CASES.put(EventType.CHANNEL_MAPPED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("m1", "main", null)),
            new EventPayload.UpdatePublished(Scenario.group("b1", "beta", null))),
        new EventPayload.ChannelMapped("production", "main", new BranchRollout("br", "beta", 100, null)),
        (before, after) -> {
          assertThat(serves(before, "production")).isNull(); // no branch named production
          assertThat(after.channels.get("production").rollout().rolloutId()).isEqualTo("br");
          Decision d = Resolver.resolve(after, Platforms.IOS, Scenario.RTV, "production", "c", null, null, List.of(), 1);
          assertThat(d.branch()).isEqualTo("beta");
          assertThat(d.inBranchRollout()).isTrue();
          assertThat(d.servedUpdateId()).isEqualTo("b1-ios");
        }));
    CASES.put(EventType.UPDATE_PUBLISHED, new Case(List.of(new EventPayload.AppCreated("Demo")),
        new EventPayload.UpdatePublished(Scenario.group("g1", "main", null)), (before, after) -> {
          assertThat(before.groupCount()).isZero();
          assertThat(after.lines.get("main").get(Scenario.RTV)).containsExactly("g1");
          assertThat(after.groupOfEntry).containsEntry("g1-ios", "g1").containsEntry("g1-android", "g1");
          assertThat(serves(after, "main")).isEqualTo("g1-ios");
        }));
    CASES.put(EventType.ROLLED_BACK_TO_EMBEDDED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.RolledBackToEmbedded(Scenario.rollback("g2", "main")), (before, after) -> {
          assertThat(after.lines.get("main").get(Scenario.RTV)).containsExactly("g1", "g2");
          Decision d = Resolver.resolve(after, Platforms.IOS, Scenario.RTV, "main", "c", null, null, List.of(), 1);
          assertThat(d.kind()).isEqualTo(Decision.Kind.ROLLBACK);
          assertThat(d.servedGroupId()).isEqualTo("g2");
        }));
    CASES.put(EventType.ROLLOUT_CHANGED, new Case(rollingOut(), new EventPayload.RolloutChanged("g2", "r2", 60, null),
        (before, after) -> {
          assertThat(before.groups.get("g2").rolloutPercentage()).isEqualTo(30);
          assertThat(after.groups.get("g2").rolloutPercentage()).isEqualTo(60);
          assertThat(after.groups.get("g2").rolloutActive()).isTrue();
          Slot s = after.slot("main", Scenario.RTV, Platforms.IOS);
          assertThat(s.rolloutId).isEqualTo("r2");
          assertThat(s.percentage).isEqualTo(60);
          assertThat(s.control().entryId()).isEqualTo("g1-ios");
        }));
    CASES.put(EventType.ROLLOUT_FINISHED, new Case(rollingOut(), new EventPayload.RolloutFinished("g2", "r2"),
        (before, after) -> {
          assertThat(after.groups.get("g2").rolloutActive()).isFalse();
          assertThat(after.groups.get("g2").rolloutPercentage()).isEqualTo(100);
          Slot s = after.slot("main", Scenario.RTV, Platforms.IOS);
          assertThat(s.rolloutId).isNull();
          assertThat(s.head().entryId()).isEqualTo("g2-ios");
          assertThat(s.control()).isNull();
        }));
    CASES.put(EventType.ROLLOUT_REVERTED, new Case(rollingOut(),
        new EventPayload.RolloutReverted("g2", "r2", "crashes", Scenario.group("g3", "main", null)),
        (before, after) -> {
          assertThat(after.groups.get("g2").reverted()).isTrue();
          assertThat(after.groups.get("g2").rolloutActive()).isFalse();
          // the reverted group stays in its line (it counts toward the retention window) but is never served
          assertThat(after.lines.get("main").get(Scenario.RTV)).containsExactly("g1", "g2", "g3");
          assertThat(after.prepared).doesNotContainKeys("g2-ios", "g2-android");
          assertThat(after.slot("main", Scenario.RTV, Platforms.IOS).rolloutId).isNull();
          assertThat(serves(after, "main")).isEqualTo("g3-ios");
        }));
    CASES.put(EventType.MANIFESTS_RENEWED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.ManifestsRenewed("urls", List.of(new Renewal("g1-android", Scenario.body("g1-android") + " ", null))),
        (before, after) -> {
          EventPayload.PlatformUpdate android = after.groups.get("g1").group().platform("android");
          EventPayload.PlatformUpdate old = before.groups.get("g1").group().platform("android");
          assertThat(after.prepared.get("g1-android").body()).isEqualTo(Scenario.body("g1-android") + " ");
          assertThat(android).isEqualTo(old.withBody(null, null));
          assertThat(after.groups.get("g1").group().platform("ios"))
              .isEqualTo(before.groups.get("g1").group().platform("ios"));
          Prepared served = after.slot("main", Scenario.RTV, Platforms.ANDROID).head();
          assertThat(served.json().toString(StandardCharsets.UTF_8)).isEqualTo(Scenario.body("g1-android") + " ");
        }));
    CASES.put(EventType.LAUNCH_ASSET_STORED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.LaunchAssetStored(LAUNCH, "application/javascript", 10, List.of(
            new EventPayload.AssetVariant("identity", LAUNCH, 10, "http://s/" + LAUNCH),
            new EventPayload.AssetVariant("zstd", PATCH, 5, "http://s/" + PATCH))),
        (before, after) -> {
          assertThat(before.launchAssets().asset(LAUNCH)).isNull();
          assertThat(after.launchAssets().asset(LAUNCH).variant("zstd").url()).isEqualTo("http://s/" + PATCH);
          assertThat(after.groups).isEqualTo(before.groups);
          assertThat(serves(after, "main")).isEqualTo("g1-ios");
        }));
    CASES.put(EventType.PATCHES_COMPUTED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.PatchesComputed("g1", List.of(
            new EventPayload.BundlePatch("ios", LAUNCH, BASE, List.of("G0-IOS"), PATCH, 3, "http://s/" + PATCH))),
        (before, after) -> {
          assertThat(before.launchAssets().patch(LAUNCH, "g0-ios")).isNull();
          assertThat(after.launchAssets().patch(LAUNCH, "g0-ios").sha256()).isEqualTo(PATCH);
          assertThat(after.launchAssets().patchesOf("g1")).hasSize(1);
          assertThat(after.servedGroupIds()).contains("g1");
          assertThat(after.groups).isEqualTo(before.groups);
        }));
    CASES.put(EventType.BUILD_REGISTERED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.BuildRegistered("ios", Scenario.RTV, "e1", BASE, 10, null),
        (before, after) -> {
          onlyTheSequenceMoved(before, after);
          assertThat(after.launchAssets()).isEqualTo(before.launchAssets());
        }));
    CASES.put(EventType.SIGNING_KEY_RETIRED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null)),
            new EventPayload.SigningKeyRegistered("main", "PEM", "abc", "{\"type\":\"noUpdateAvailable\"}", SIG,
                List.of(), null, true),
            new EventPayload.SigningKeyRegistered("next", "PEM2", "def", "{\"type\":\"noUpdateAvailable\"}",
                "sig=\"CCCC\", keyid=\"next\"", List.of(), null, true)),
        new EventPayload.SigningKeyRetired("main", null, null, null),
        (before, after) -> {
          assertThat(before.keyIds()).isEqualTo("main, next");
          assertThat(before.keyIndex("main")).isZero();
          assertThat(after.keyIds()).isEqualTo("next");
          assertThat(after.keyIndex("main")).isEqualTo(-1);
          assertThat(after.keyIndex("next")).isZero();
          assertThat(after.noUpdate().signature(0).toString()).isEqualTo("sig=\"CCCC\", keyid=\"next\"");
          assertThat(after.groups).isEqualTo(before.groups);
        }));
    CASES.put(EventType.APP_UPDATED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "production", null))),
        new EventPayload.AppUpdated("production"),
        (before, after) -> {
          assertThat(before.defaultChannel()).isNull();
          assertThat(after.defaultChannel()).isEqualTo("production");
          assertThat(after.groups).isEqualTo(before.groups);
          assertThat(after.filtersFor("production").toString()).isEqualTo("branchname=\"production\"");
        }));
    CASES.put(EventType.UPDATES_DELETED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null)),
            new EventPayload.UpdatePublished(Scenario.group("g2", "main", null))),
        new EventPayload.UpdatesDeleted(List.of("g2"), null),
        (before, after) -> {
          assertThat(serves(before, "main")).isEqualTo("g2-ios");
          assertThat(serves(after, "main")).as("the next answer").isEqualTo("g1-ios");
          assertThat(after.groups).doesNotContainKey("g2");
          assertThat(after.groupOfEntry).doesNotContainKeys("g2-ios", "g2-android");
          assertThat(after.lines.get("main").get(Scenario.RTV)).containsExactly("g1");
          assertThat(after.prepared).doesNotContainKeys("g2-ios", "g2-android");
        }));
    CASES.put(EventType.UPDATE_PINNED, new Case(List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.UpdatePinned("g1", true), AppDeltaTest::onlyTheSequenceMoved));
    CASES.put(EventType.BRANCH_DELETED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("m1", "main", null)),
            new EventPayload.UpdatePublished(Scenario.group("b1", "beta", null))),
        new EventPayload.BranchDeleted("beta"),
        (before, after) -> {
          assertThat(serves(before, "beta")).isEqualTo("b1-ios");
          assertThat(serves(after, "beta")).isNull();
          assertThat(after.groups).containsOnlyKeys("m1");
          assertThat(after.lines).containsOnlyKeys("main");
          assertThat(serves(after, "main")).isEqualTo("m1-ios");
        }));
    CASES.put(EventType.CHANNEL_DELETED, new Case(
        List.of(new EventPayload.UpdatePublished(Scenario.group("m1", "main", null)),
            new EventPayload.ChannelMapped("production", "main", null)),
        new EventPayload.ChannelDeleted("production"),
        (before, after) -> {
          assertThat(serves(before, "production")).isEqualTo("m1-ios");
          assertThat(after.channels).isEmpty();
          assertThat(serves(after, "production")).as("serves the branch of its name again: none").isNull();
        }));
    CASES.put(EventType.APP_DELETED, new Case(List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.AppDeleted("Demo"), AppDeltaTest::onlyTheSequenceMoved)); // ImageDelta drops the app: see below
    CASES.put(EventType.RETENTION_SET, new Case(List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))),
        new EventPayload.RetentionSet(null, 10, null), AppDeltaTest::onlyTheSequenceMoved));
  }

  @Test
  void aDeletedAppLeavesTheImageAndAnAppCreatedAgainStartsEmpty() {
    ImageDelta d = new ImageDelta(ResolveImage.EMPTY);
    d.replay(EventEnvelope.of(Scenario.APP, 1, Scenario.T0, "test", new EventPayload.AppCreated("Demo")));
    d.replay(EventEnvelope.of(Scenario.APP, 2, Scenario.T0, "test", new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))));
    ResolveImage withApp = d.apply();
    ImageDelta del = new ImageDelta(withApp);
    assertThat(del.replay(EventEnvelope.of(Scenario.APP, 3, Scenario.T0, "test", new EventPayload.AppDeleted("Demo"))))
        .isEqualTo(ImageDelta.Replayed.APPLIED);
    ResolveImage without = del.apply();
    assertThat(withApp.app(Scenario.APP)).isNotNull();
    assertThat(without.app(Scenario.APP)).isNull();

    ImageDelta again = new ImageDelta(withApp);
    again.replay(EventEnvelope.of(Scenario.APP, 3, Scenario.T0, "test", new EventPayload.AppDeleted("Demo")));
    assertThat(again.replay(EventEnvelope.of(Scenario.APP, 1, Scenario.T0, "test", new EventPayload.AppCreated("Demo"))))
        .isEqualTo(ImageDelta.Replayed.APPLIED);
    AppImage fresh = again.apply().app(Scenario.APP);
    assertThat(fresh.groupCount()).isZero();
    assertThat(fresh.lastSequence()).isEqualTo(1);
  }


  @Test
  void everyEventTypeHasACase() {
    assertThat(CASES.keySet()).containsExactlyInAnyOrder(EventType.values());
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void oneEventOfEachTypeHasItsDocumentedEffect(EventType type) {
    Case c = CASES.get(type);
    assertThat(c).as("no case for event type %s: add what its fold does", type).isNotNull();
    AppImage before = build(null, c.before());
    long sequence = (before == null ? 0 : before.lastSequence()) + 1;
    EventEnvelope e = EventEnvelope.of(Scenario.APP, sequence, Scenario.T0.plusSeconds(sequence), "test", c.event());
    assertThat(e.type()).isEqualTo(type);

    AppDelta d = new AppDelta(Scenario.APP, before);
    assertThat(d.replay(e)).as("applied").isTrue();
    AppImage after = d.build(before);

    assertThat(after.lastSequence()).isEqualTo(sequence);
    c.effect().check(before, after);
    assertThat(build(null, append(c.before(), c.event()))).as("same as replaying all at once").isEqualTo(after);
  }

  @Test
  void renewingAnUnknownEntryIsLeftOutAndTheOthersApply() {
    AppImage before = build(null, List.of(new EventPayload.UpdatePublished(Scenario.group("g1", "main", null))));
    AppDelta d = new AppDelta(Scenario.APP, before);
    boolean applied = d.replay(EventEnvelope.of(Scenario.APP, 2, Scenario.T0, "test", new EventPayload.ManifestsRenewed(
        "urls", List.of(new Renewal("nope", "{}", null), new Renewal("g1-ios", "{\"renewed\":1}", null)))));
    AppImage after = d.build(before);

    assertThat(applied).isFalse();
    assertThat(after.lastSequence()).isEqualTo(2);
    assertThat(after.prepared.get("g1-ios").body()).isEqualTo("{\"renewed\":1}");
  }

  private static void onlyTheSequenceMoved(AppImage before, AppImage after) {
    assertThat(after.lastSequence()).isEqualTo(before.lastSequence() + 1);
    assertThat(after.channels).isEqualTo(before.channels);
    assertThat(after.groups).isEqualTo(before.groups);
    assertThat(after.groupOfEntry).isEqualTo(before.groupOfEntry);
    assertThat(after.lines).isEqualTo(before.lines);
    assertThat(after.signs()).isEqualTo(before.signs());
    assertThat(after.prepared).isEqualTo(before.prepared);
  }

  /** The update id an iOS device on {@code channel} is served, or null. */
  private static String serves(AppImage app, String channel) {
    return Resolver.resolve(app, Platforms.IOS, Scenario.RTV, channel, "c", null, null, List.of(), 1).servedUpdateId();
  }

  private static List<EventPayload> append(List<EventPayload> events, EventPayload last) {
    List<EventPayload> all = new java.util.ArrayList<>(events);
    all.add(last);
    return all;
  }

  /** The app after {@code events} (numbered from 1) on {@code base}, or null for no events. */
  private static AppImage build(AppImage base, List<EventPayload> events) {
    if (events.isEmpty()) {
      return base;
    }
    AppDelta d = new AppDelta(Scenario.APP, base);
    long seq = base == null ? 0 : base.lastSequence();
    for (EventPayload p : events) {
      seq++;
      assertThat(d.replay(EventEnvelope.of(Scenario.APP, seq, Scenario.T0.plusSeconds(seq), "test", p))).isTrue();
    }
    return d.build(base);
  }
}
