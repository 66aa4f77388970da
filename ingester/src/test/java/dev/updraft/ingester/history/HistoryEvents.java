package dev.updraft.ingester.history;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.AssetEvents.PatchesComputed;
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
import dev.updraft.events.EventType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Events for the history projection's tests (the control plane's fold tests use the same log). */
public final class HistoryEvents {
  public static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  private HistoryEvents() {}

  public static EventEnvelope e(String app, long seq, EventPayload p) {
    return new EventEnvelope(new UUID(app.hashCode(), seq), p.type(), 1, app, seq, T0.plusSeconds(seq), "admin", p);
  }

  public static EventEnvelope e(long seq, EventPayload p) {
    return e("demo", seq, p);
  }

  public static UpdateGroup group(String id, String branch, Rollout rollout, String... platforms) {
    List<PlatformUpdate> ps = new ArrayList<>();
    for (String p : platforms) {
      ps.add(new PlatformUpdate(p, id + "-" + p, "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "-" + p + "\"}", null, "k", List.of("k")));
    }
    return new UpdateGroup(id, UpdateGroup.KIND_UPDATE, branch, "1", null, null, "idem-" + id, null, rollout, ps);
  }

  /** The control plane's StateFoldTest log: publish, rollout, revert with a replacement, renewals. */
  public static List<EventEnvelope> log() {
    return List.of(
        e(1, new AppCreated("Demo")),
        e(2, new TokenIssued("tok_1", "publish", "aa".repeat(32), "ci", null)),
        e(3, new UpdatePublished(group("g1", "main", null, "ios", "android"))),
        e(4, new UpdatePublished(group("g2", "main", new Rollout("r2", 10, "g1", null), "ios", "android"))),
        e(5, new RolloutChanged("g2", "r2", 40, null)),
        e(6, new RolloutReverted("g2", "r2", "bad", group("g3", "main", null, "ios", "android"))),
        e(7, new ChannelMapped("production", "main", null)),
        e(8, new TokenRevoked("tok_1")),
        e(9, new ManifestsRenewed("renew", List.of(new Renewal("g3-ios", "{\"renewed\":true}", "sig=\"x\"")))));
  }

  /** A payload of {@code type} (the control plane's EveryEventTypeFoldTest samples). */
  public static EventPayload sample(EventType type) {
    return switch (type) {
      case APP_CREATED -> new AppCreated("Another app");
      case TOKEN_ISSUED -> new TokenIssued("tok_2", "read", "bb".repeat(32), null, null);
      case TOKEN_REVOKED -> new TokenRevoked("tok_1");
      case SIGNING_KEY_REGISTERED ->
          new SigningKeyRegistered(
              "main", "-----BEGIN CERTIFICATE-----", "cc".repeat(32), "{}", "sig=\"n\"", List.of(new Renewal("g1-ios", "{\"id\":\"g1-ios\"}", "sig=\"s\"")));
      case CHANNEL_MAPPED -> new ChannelMapped("production", "main", null);
      case UPDATE_PUBLISHED -> new UpdatePublished(group("g3", "beta", null, "ios"));
      case ROLLED_BACK_TO_EMBEDDED -> new RolledBackToEmbedded(
          new UpdateGroup("g4", UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, "beta", "1", null, null, null, null, null, List.of()));
      case ROLLOUT_CHANGED -> new RolloutChanged("g2", "r2", 50, null);
      case ROLLOUT_FINISHED -> new RolloutFinished("g2", "r2");
      case ROLLOUT_REVERTED -> new RolloutReverted("g2", "r2", "crashes", group("g5", "main", null, "ios"));
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
}
