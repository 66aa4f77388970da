package dev.updraft.edge.image;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Hand-made event sequences for image tests. Bodies are small synthetic JSON manifests naming their
 * own id, so a served body tells which update it is.
 */
final class Scenario {
  static final String APP = "demo";
  static final String RTV = "1.0.0";
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  final List<EventEnvelope> events = new ArrayList<>();
  private long seq;

  /** An envelope for any app (benchmarks build many). */
  static EventEnvelope envelope(String app, long seq, EventPayload p) {
    return EventEnvelope.of(app, seq, T0.plusSeconds(seq), "test", p);
  }

  Scenario add(EventPayload p) {
    events.add(EventEnvelope.of(APP, ++seq, T0.plusSeconds(seq), "test", p));
    return this;
  }

  static String body(String updateId) {
    return "{\"id\":\"" + updateId + "\",\"runtimeVersion\":\"" + RTV + "\"}";
  }

  /** A group {@code name} with entries {@code name-ios} and {@code name-android}. */
  static UpdateGroup group(String name, String branch, Rollout rollout) {
    return group(name, branch, RTV, rollout);
  }

  static UpdateGroup group(String name, String branch, String rtv, Rollout rollout) {
    List<PlatformUpdate> p = List.of(
        new PlatformUpdate("ios", name + "-ios", "2026-01-01T00:00:00.000Z", body(name + "-ios"), null, null, List.of()),
        new PlatformUpdate("android", name + "-android", "2026-01-01T00:00:00.000Z", body(name + "-android"), null, null,
            List.of()));
    return new UpdateGroup(name, UpdateGroup.KIND_UPDATE, branch, rtv, null, null, null, null, rollout, p);
  }

  static UpdateGroup rollback(String name, String branch) {
    String body = "{\"type\":\"rollBackToEmbedded\",\"parameters\":{\"commitTime\":\"2026-02-01T00:00:00.000Z\"}}";
    List<PlatformUpdate> p = List.of(
        new PlatformUpdate("ios", name + "-ios", "2026-02-01T00:00:00.000Z", body, null, null, List.of()),
        new PlatformUpdate("android", name + "-android", "2026-02-01T00:00:00.000Z", body, null, null, List.of()));
    return new UpdateGroup(name, UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, branch, RTV, null, null, null, null, null, p);
  }

  /**
   * A scenario using every event type: publishes, a per-update rollout changed and finished, a second
   * rollout reverted with a replacement, a branch rollout, renewals, a signing key, a roll back.
   */
  static Scenario full() {
    return new Scenario()
        .add(new EventPayload.AppCreated("Demo"))
        .add(new EventPayload.TokenIssued("t1", "publish", "00", "ci", null))
        .add(new EventPayload.ChannelMapped("production", "main", null))
        .add(new EventPayload.UpdatePublished(group("g1", "main", null)))
        .add(new EventPayload.UpdatePublished(group("g2", "main", new Rollout("r2", 30, "g1", null))))
        .add(new EventPayload.RolloutChanged("g2", "r2", 60, null))
        .add(new EventPayload.ChannelMapped("production", "main", new BranchRollout("br1", "beta", 20, null)))
        .add(new EventPayload.UpdatePublished(group("g3", "beta", null)))
        .add(new EventPayload.RolloutFinished("g2", "r2"))
        .add(new EventPayload.UpdatePublished(group("g4", "main", new Rollout("r4", 10, "g2", null))))
        .add(new EventPayload.RolloutReverted("g4", "r4", "crashes", group("g5", "main", null)))
        .add(new EventPayload.ManifestsRenewed("urls", List.of(new EventPayload.Renewal("g5-ios", body("g5-ios") + " ", null))))
        .add(new EventPayload.SigningKeyRegistered("main", "PEM", "abc", "{\"type\":\"noUpdateAvailable\"}",
            "sig=\"AAAA\", keyid=\"main\"", List.of(new EventPayload.Renewal("g5-android", body("g5-android"), "sig=\"BBBB\", keyid=\"main\""))))
        .add(new EventPayload.UpdatePublished(group("g6", "main", "2.0.0", null)))
        .add(new EventPayload.RolledBackToEmbedded(rollback("g7", "main")))
        .add(new EventPayload.TokenRevoked("t1"));
  }

  /** Replays {@code events} into one delta on {@code base} and applies it. */
  static ResolveImage replay(ResolveImage base, List<EventEnvelope> events) {
    ImageDelta d = new ImageDelta(base);
    for (EventEnvelope e : events) {
      d.replay(e);
    }
    return d.apply();
  }

  /** Replays {@code events} one delta per event. */
  static ResolveImage replayOneByOne(ResolveImage base, List<EventEnvelope> events) {
    ResolveImage img = base;
    for (EventEnvelope e : events) {
      img = replay(img, List.of(e));
    }
    return img;
  }
}
