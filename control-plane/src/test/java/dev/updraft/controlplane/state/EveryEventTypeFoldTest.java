package dev.updraft.controlplane.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventType;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every {@link EventType} has a fold that changes the state: one event of each, folded after a small log,
 * must leave one more audit entry of its type and change something besides the audit and the sequence.
 * A new type fails to compile here ({@link #sample} is a switch without a default) until it has a sample,
 * and fails the test when its fold ignores it.
 */
class EveryEventTypeFoldTest {
  static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  /** Types whose events only show in the audit log (none today): listing one here is a decision. */
  static final Set<EventType> AUDIT_ONLY = Set.of();

  static EventEnvelope e(String appId, long seq, EventPayload p) {
    return new EventEnvelope(new UUID(1, seq), p.type(), EventType.CURRENT_SCHEMA_VERSION, appId, seq, T0.plusSeconds(seq), "admin", p);
  }

  static UpdateGroup group(String id, String kind, String branch, Rollout rollout) {
    List<PlatformUpdate> ps =
        List.of(
            new PlatformUpdate("ios", id + "-ios", "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "-ios\"}", null, "k", List.of("k")),
            new PlatformUpdate("android", id + "-android", "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "-android\"}", null, "k", List.of("k")));
    return new UpdateGroup(id, kind, branch, "1", null, null, "idem-" + id, null, rollout, ps);
  }

  /**
   * An app with a token, an update, a rollout of the next one in progress and a signing key: every type has
   * something to change.
   */
  static ControlState base() {
    ControlState s = ControlState.EMPTY;
    for (EventEnvelope ev :
        List.of(
            e("demo", 1, new AppCreated("Demo")),
            e("demo", 2, new TokenIssued("tok_1", "publish", "aa".repeat(32), "ci", null)),
            e("demo", 3, new UpdatePublished(group("g1", UpdateGroup.KIND_UPDATE, "main", null))),
            e("demo", 4, new UpdatePublished(group("g2", UpdateGroup.KIND_UPDATE, "main", new Rollout("r2", 10, "g1", null)))),
            e("demo", 5, new SigningKeyRegistered(
                "old", "-----BEGIN CERTIFICATE-----", "dd".repeat(32), "{}", "sig=\"o\"", List.of(), null, true)),
            e("demo", 6, new ChannelMapped("beta", "main", null)))) {
      s = StateFold.apply(s, ev);
    }
    return s;
  }

  /** One event of {@code type} that applies to {@link #base()}. */
  static EventPayload sample(EventType type) {
    return switch (type) {
      case APP_CREATED -> new AppCreated("Another app");
      case TOKEN_ISSUED -> new TokenIssued("tok_2", "read", "bb".repeat(32), null, null);
      case TOKEN_REVOKED -> new TokenRevoked("tok_1");
      case SIGNING_KEY_REGISTERED ->
          new SigningKeyRegistered(
              "main", "-----BEGIN CERTIFICATE-----", "cc".repeat(32), "{}", "sig=\"n\"", List.of(new Renewal("g1-ios", "{\"id\":\"g1-ios\"}", "sig=\"s\"")));
      case CHANNEL_MAPPED -> new ChannelMapped("production", "main", null);
      case UPDATE_PUBLISHED -> new UpdatePublished(group("g3", UpdateGroup.KIND_UPDATE, "beta", null));
      case ROLLED_BACK_TO_EMBEDDED -> new RolledBackToEmbedded(group("g4", UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, "beta", null));
      case ROLLOUT_CHANGED -> new RolloutChanged("g2", "r2", 50, null);
      case ROLLOUT_FINISHED -> new RolloutFinished("g2", "r2");
      case ROLLOUT_REVERTED -> new RolloutReverted("g2", "r2", "crashes", group("g5", UpdateGroup.KIND_UPDATE, "main", null));
      case MANIFESTS_RENEWED -> new ManifestsRenewed("renew", List.of(new Renewal("g2-android", "{\"renewed\":true}", null)));
      case LAUNCH_ASSET_STORED ->
          new LaunchAssetStored("aa".repeat(32), "application/javascript", 10, List.of(new AssetVariant("identity", "aa".repeat(32), 10, "http://s/a")));
      case PATCHES_COMPUTED ->
          new PatchesComputed("g2", List.of(new BundlePatch("ios", "aa".repeat(32), "bb".repeat(32), List.of("g1-ios"), "cc".repeat(32), 3, "http://s/c")));
      case BUILD_REGISTERED -> new BuildRegistered("ios", "1", "e1", "bb".repeat(32), 10, null);
      case SIGNING_KEY_RETIRED -> new SigningKeyRetired("old", null, null, null);
      case APP_UPDATED -> new AppUpdated("production");
      case UPDATES_DELETED -> new EventPayload.UpdatesDeleted(List.of("g1"), "test");
      case UPDATE_PINNED -> new EventPayload.UpdatePinned("g1", true);
      case BRANCH_DELETED -> new EventPayload.BranchDeleted("main");
      case CHANNEL_DELETED -> new EventPayload.ChannelDeleted("beta");
      case APP_DELETED -> new EventPayload.AppDeleted("Demo");
      case RETENTION_SET -> new EventPayload.RetentionSet(null, 10, null);
    };
  }

  /** What an app is besides its audit log and last sequence (its deliveries and retention settings included). */
  record Content(Object tokens, Object keys, Object defaultChannel, Object channels, Object groups, Object idempotencyKeys,
      Object deliveries, Object retention) {
    static Content of(AppState a, ControlState s) {
      return a == null ? null : new Content(a.tokens(), a.keys(), a.defaultChannel(), a.channels(), a.groups(), a.idempotencyKeys(),
          s.deliveries(a.appId()), s.retention(a.appId()));
    }
  }

  @Test
  void everyEventTypeChangesTheStateAndShowsInTheAuditLog() {
    ControlState before = base();
    for (EventType type : EventType.values()) {
      String appId = type == EventType.APP_CREATED ? "other" : "demo";
      AppState old = before.app(appId);
      long seq = old == null ? 1 : old.lastSequence() + 1;
      ControlState after = StateFold.apply(before, e(appId, seq, sample(type)));
      AppState app = after.app(appId);
      if (type == EventType.APP_DELETED) {
        assertThat(app).as(type + " removes the app").isNull();
        assertThat(after.tokensBySha256()).as(type + " ends its tokens").isEmpty();
        continue;
      }

      assertThat(app).as(type + " folds").isNotNull();
      assertThat(app.lastSequence()).as(type + " advances the sequence").isEqualTo(seq);
      // what the audit log says of each type: the ingester's AuditSummariesTest (the audit is projected there)
      if (!AUDIT_ONLY.contains(type)) {
        assertThat(Content.of(app, after)).as(type + " changes the app, not only its audit log").isNotEqualTo(Content.of(old, before));
      }
    }
  }

  @Test
  void eachSampleDoesWhatItsTypeSays() {
    ControlState s = base();
    AppState demo = s.app("demo");
    long next = demo.lastSequence() + 1;
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.TOKEN_REVOKED))).tokensBySha256()).isEmpty();
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.TOKEN_ISSUED))).tokensBySha256()).hasSize(2);
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.ROLLOUT_FINISHED))).app("demo").activeRollout("main", "1")).isNull();
    AppState reverted = StateFold.apply(s, e("demo", next, sample(EventType.ROLLOUT_REVERTED))).app("demo");
    assertThat(reverted.group("g2").revertedBy()).isEqualTo("g5");
    assertThat(reverted.latestWith("main", "1", "ios").groupId()).isEqualTo("g5");
    AppState renewed = StateFold.apply(s, e("demo", next, sample(EventType.MANIFESTS_RENEWED))).app("demo");
    assertThat(renewed.group("g2").platform("android").body()).isEqualTo("{\"renewed\":true}");
    assertThat(renewed.group("g2").renderedAt().get("g2-android")).isEqualTo(T0.plusSeconds(next));
    assertThat(renewed.group("g2").platform("ios").body()).isEqualTo(demo.group("g2").platform("ios").body());
    AppState signed = StateFold.apply(s, e("demo", next, sample(EventType.SIGNING_KEY_REGISTERED))).app("demo");
    assertThat(signed.group("g1").platform("ios").signature()).isEqualTo("sig=\"s\"");
    assertThat(signed.group("g1").renderedAt()).as("same body: not rendered again").isEqualTo(demo.group("g1").renderedAt());
    assertThat(signed.keys()).extracting(SigningState::keyId).as("written before the key ring: replaces it").containsExactly("main");
    AppState retired = StateFold.apply(s, e("demo", next, sample(EventType.SIGNING_KEY_RETIRED))).app("demo");
    assertThat(demo.keys()).extracting(SigningState::keyId).containsExactly("old");
    assertThat(retired.keys()).isEmpty();
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.APP_UPDATED))).app("demo").defaultChannel()).isEqualTo("production");
    AppState deleted = StateFold.apply(s, e("demo", next, sample(EventType.UPDATES_DELETED))).app("demo");
    assertThat(deleted.group("g1")).isNull();
    assertThat(deleted.groups()).extracting(GroupState::groupId).containsExactly("g2");
    assertThat(deleted.idempotencyKeys().containsKey("idem-g1")).as("the deleted group's idempotency key").isFalse();
    assertThat(deleted.groupsNewestFirst("main", "1")).extracting(GroupState::groupId).containsExactly("g2");
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.UPDATE_PINNED))).retention("demo").isPinned("g1")).isTrue();
    AppState noBranch = StateFold.apply(s, e("demo", next, sample(EventType.BRANCH_DELETED))).app("demo");
    assertThat(noBranch.groups()).isEmpty();
    assertThat(noBranch.activeRollouts()).isEmpty();
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.CHANNEL_DELETED))).app("demo").channels()).isEmpty();
    ControlState gone = StateFold.apply(s, e("demo", next, sample(EventType.APP_DELETED)));
    assertThat(gone.app("demo")).isNull();
    assertThat(StateFold.apply(gone, e("demo", 1, new AppCreated("Again"))).app("demo").groups()).as("created again: empty").isEmpty();
    assertThat(StateFold.apply(s, e("demo", next, sample(EventType.RETENTION_SET))).retention("demo").policyFor("main").keep())
        .isEqualTo(10);
  }

  @Test
  void aDeletedGroupLeavesEveryIndexAndAHistoryRebuiltFromTheListIsEqual() {
    ControlState s = base();
    long next = s.app("demo").lastSequence() + 1;
    s = StateFold.apply(s, e("demo", next, new UpdatePublished(group("g3", UpdateGroup.KIND_UPDATE, "main", null))));
    AppState after = StateFold.apply(s, e("demo", next + 1, new EventPayload.UpdatesDeleted(List.of("g3"), null))).app("demo");
    assertThat(after.latestWith("main", "1", "ios").groupId()).isEqualTo("g2");
    assertThat(after.servable()).extracting(AppState.Servable::groupId).doesNotContain("g3");
    assertThat(after.history()).isEqualTo(GroupHistory.of(after.groups()));
    assertThat(after.history().inLogOrder()).extracting(GroupState::groupId).as("held groups").doesNotContain("g3");
  }

  @Test
  void aKeyJoiningTheRingKeepsTheOthersAndReplacesOnlyItsOwnKeyid() {
    ControlState s = base();
    long next = s.app("demo").lastSequence() + 1;
    AppState two = StateFold.apply(s, e("demo", next, new SigningKeyRegistered(
        "new", "-----BEGIN CERTIFICATE-----", "ee".repeat(32), "{}", "sig=\"n\"", List.of(), null, true))).app("demo");
    assertThat(two.keys()).extracting(SigningState::keyId).containsExactly("old", "new");
    assertThat(two.newestKey().keyId()).isEqualTo("new");
    AppState replaced = StateFold.apply(StateFold.apply(s, e("demo", next, new SigningKeyRegistered(
        "new", "-----BEGIN CERTIFICATE-----", "ee".repeat(32), "{}", "sig=\"n\"", List.of(), null, true))), e("demo", next + 1,
        new SigningKeyRegistered("old", "-----BEGIN CERTIFICATE-----", "ff".repeat(32), "{}", "sig=\"p\"", List.of(), "chain", true)))
        .app("demo");
    assertThat(replaced.keys()).extracting(SigningState::keyId).containsExactly("old", "new");
    assertThat(replaced.key("old").certificateSha256()).isEqualTo("ff".repeat(32));
    assertThat(replaced.key("old").chain()).isTrue();
    assertThat(replaced.newestKey().keyId()).isEqualTo("old");
  }
}
