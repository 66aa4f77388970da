package dev.updraft.controlplane.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppSnapshot;
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
import dev.updraft.events.UpdateEvents.RetentionSet;
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
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventType;
import dev.updraft.events.SnapshotCodec;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The state is a function of the event sequence alone: for every prefix of a random log, folding the
 * prefix, writing its snapshot, reading it back and folding the rest gives the state a fold of the whole
 * log gives (the audit log aside: it is history, kept in PostgreSQL).
 */
class SnapshotRoundTripTest {
  static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  static final String[] BRANCHES = {"main", "beta"};
  static final String[] RUNTIMES = {"1", "2"};

  /** A random but valid log of one app: {@code n} events after its creation. */
  static List<EventEnvelope> randomLog(long seed, int n) {
    Random r = new Random(seed);
    List<EventEnvelope> log = new ArrayList<>();
    ControlState s = ControlState.EMPTY;
    Instant t = T0;
    for (long seq = 1; seq <= n + 1; seq++) {
      t = t.plus(Duration.ofMinutes(r.nextInt(4) == 0 ? 300 : 3));
      EventPayload p = seq == 1 ? new AppCreated("Demo") : next(r, s.app("demo"), s.deliveries("demo"), seq);
      EventEnvelope e = new EventEnvelope(new UUID(3, seq), p.type(), EventType.CURRENT_SCHEMA_VERSION, "demo", seq, t, "tok_" + (seq % 3), p);
      log.add(e);
      s = StateFold.apply(s, e);
    }
    return log;
  }

  private static EventPayload next(Random r, AppState app, Deliveries d, long seq) {
    List<GroupState> groups = app.groups();
    List<GroupState> rollouts = app.activeRollouts();
    int pick = r.nextInt(22);
    if (pick < 7 || groups.isEmpty()) {
      return publish(r, app, seq);
    }
    GroupState any = groups.get(r.nextInt(groups.size()));
    switch (pick) {
      case 7:
        return rollouts.isEmpty() ? publish(r, app, seq) : new RolloutChanged(rollouts.get(0).groupId(), rollouts.get(0).rollout().rolloutId(), r.nextInt(101), null);
      case 8:
        return rollouts.isEmpty() ? publish(r, app, seq) : new RolloutFinished(rollouts.get(0).groupId(), rollouts.get(0).rollout().rolloutId());
      case 9:
        if (rollouts.isEmpty()) {
          return publish(r, app, seq);
        }
        GroupState g = rollouts.get(0);
        return new RolloutReverted(g.groupId(), g.rollout().rolloutId(), "crashes", group("g" + seq, UpdateGroup.KIND_UPDATE, g.group().branch(),
            g.group().runtimeVersion(), null, true, true));
      case 10:
        PlatformUpdate u = any.group().platforms().get(0);
        return new ManifestsRenewed("renew", List.of(new Renewal(u.updateId(), "{\"renewed\":" + seq + "}", "sig=\"r" + seq + "\"",
            Map.of("main", "sig=\"r" + seq + "\""))));
      case 11:
        return r.nextBoolean() ? new TokenIssued("t" + seq, "publish", Long.toHexString(seq).repeat(3), "ci",
            r.nextBoolean() ? null : Instant.parse("2027-01-01T00:00:00Z").plusSeconds(seq).toString())
            : new TokenRevoked(app.tokens().isEmpty() ? "none" : app.tokens().firstKey());
      case 12:
        return new SigningKeyRegistered(r.nextBoolean() ? "main" : "k" + (seq % 3), "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
            "cc" + seq, "{}", "sig=\"n\"", List.of(new Renewal(any.group().platforms().get(0).updateId(), "{\"resigned\":" + seq + "}", "sig=\"z\"")),
            null, r.nextBoolean());
      case 13:
        return app.keys().size() > 1 ? new SigningKeyRetired(app.keys().get(1).keyId(), null, null, null) : new AppUpdated(r.nextBoolean() ? "production" : null);
      case 14:
        return new ChannelMapped(r.nextBoolean() ? "production" : "staging", BRANCHES[r.nextInt(2)], null).withPaused(r.nextInt(3) == 0);
      case 15:
        return new LaunchAssetStored(Long.toHexString(seq), "application/javascript", seq,
            List.of(new AssetVariant("identity", Long.toHexString(seq), seq, "http://s/" + seq)));
      case 16:
        return new PatchesComputed(any.groupId(), List.of(new BundlePatch("ios", "aa" + seq, "bb".repeat(32), List.of("u"), "cc" + seq, 3, "http://s/c")));
      case 17:
        return new BuildRegistered("ios", "1", "e" + (seq % 4), "bb" + seq, 10, null);
      case 19:
        return new UpdatePinned(any.groupId(), r.nextInt(3) > 0);
      case 20:
        return r.nextInt(4) == 0 ? new RetentionSet(r.nextBoolean() ? null : BRANCHES[r.nextInt(2)], null, null)
            : new RetentionSet(r.nextBoolean() ? null : BRANCHES[r.nextInt(2)], 3 + r.nextInt(20), r.nextBoolean() ? null : 86_400L * (1 + r.nextInt(90)));
      case 18:
        return new RolledBackToEmbedded(group("g" + seq, UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, BRANCHES[r.nextInt(2)], RUNTIMES[r.nextInt(2)], null,
            true, r.nextBoolean()));
      default:
        return publish(r, app, seq);
    }
  }

  private static EventPayload publish(Random r, AppState app, long seq) {
    String branch = BRANCHES[r.nextInt(2)];
    String runtime = RUNTIMES[r.nextInt(2)];
    Rollout rollout = null;
    GroupState latest = app.latestWith(branch, runtime, "ios");
    if (r.nextInt(4) == 0 && app.activeRollout(branch, runtime) == null) {
      rollout = new Rollout("r" + seq, r.nextInt(100), latest == null ? null : latest.groupId(), null);
    }
    return new UpdatePublished(group("g" + seq, UpdateGroup.KIND_UPDATE, branch, runtime, rollout, true, r.nextInt(3) > 0));
  }

  static UpdateGroup group(String id, String kind, String branch, String runtime, Rollout rollout, boolean ios, boolean android) {
    List<PlatformUpdate> ps = new ArrayList<>();
    if (ios) {
      ps.add(new PlatformUpdate("ios", id + "-ios", "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "-ios\"}", "sig=\"a\"", "k", List.of("k"),
          Map.of("main", "sig=\"a\"")));
    }
    if (android) {
      ps.add(new PlatformUpdate("android", id + "-android", "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "-android\"}", null, "k", List.of("k")));
    }
    return new UpdateGroup(id, kind, branch, runtime, "message " + id, "abc", "idem-" + id, null, rollout, ps);
  }

  static ControlState fold(ControlState s, List<EventEnvelope> events) {
    for (EventEnvelope e : events) {
      s = StateFold.apply(s, e);
    }
    return s;
  }

  /** The state through its snapshot's bytes: encoded, split, reassembled, decoded and restored. */
  static ControlState throughSnapshot(ControlState s, long offset) {
    AppSnapshot snap = Snapshots.of(s, "demo", 0, offset);
    byte[] gz = SnapshotCodec.encode(snap);
    List<byte[]> chunks = SnapshotCodec.split(gz, 700);
    SnapshotCodec.Read read = SnapshotCodec.read(SnapshotCodec.manifest(snap, "s" + offset, gz, chunks.size()), chunks);
    assertThat(read).isInstanceOf(SnapshotCodec.Read.Ok.class);
    return Snapshots.restore(ControlState.EMPTY, ((SnapshotCodec.Read.Ok) read).snapshot());
  }

  /** {@code s} without audit logs (history, not state a snapshot carries). */
  static ControlState withoutAudit(ControlState s) {
    return s; // the state holds no audit log any more (the ingester projects it into PostgreSQL)
  }

  @Test
  void foldOfAPrefixThenItsSnapshotThenTheRestEqualsTheFoldOfEverything() {
    for (long seed = 1; seed <= 6; seed++) {
      List<EventEnvelope> log = randomLog(seed, 250);
      ControlState all = withoutAudit(fold(ControlState.EMPTY, log));
      for (int n = 1; n <= log.size(); n++) {
        ControlState prefix = fold(ControlState.EMPTY, log.subList(0, n));
        ControlState resumed = fold(throughSnapshot(prefix, n - 1), log.subList(n, log.size()));
        assertThat(withoutAudit(resumed)).as("seed %d, snapshot after %d events", seed, n).isEqualTo(all);
      }
    }
  }

  @Test
  void theRandomLogsExerciseTheRetentionRuleAndEveryComponent() {
    List<EventEnvelope> log = new ArrayList<>(randomLog(3, 400));
    EventPayload last = new AppUpdated("production");
    log.add(new EventEnvelope(new UUID(4, 1), last.type(), 1, "demo", log.size() + 1, log.get(log.size() - 1).occurredAt(), "admin", last));
    ControlState s = fold(ControlState.EMPTY, log);
    AppState app = s.app("demo");
    assertThat(app.groups().size()).isLessThan(200);
    assertThat(app.idempotencyKeys().size()).isLessThan(app.groups().size() + 200);
    ControlState back = throughSnapshot(s, 400);
    AppState restored = back.app("demo");
    for (RecordComponent c : AppState.class.getRecordComponents()) {
      Object before = value(c, app);
      Object after = value(c, restored);
      if (c.getName().equals("audit")) {
        assertThat((Collection<?>) after).as("the audit log is not in a snapshot").isEmpty();
        continue;
      }
      assertThat(nonTrivial(before)).as("the sample state has a value for AppState.%s", c.getName()).isTrue();
      assertThat(after).as("AppState.%s survives a snapshot", c.getName()).isEqualTo(before);
    }
    for (RecordComponent c : Deliveries.class.getRecordComponents()) {
      Object before = value(c, s.deliveries("demo"));
      assertThat(nonTrivial(before)).as("the sample state has Deliveries.%s", c.getName()).isTrue();
      assertThat(value(c, back.deliveries("demo"))).as("Deliveries.%s survives a snapshot", c.getName()).isEqualTo(before);
    }
    for (RecordComponent c : RetentionState.class.getRecordComponents()) {
      Object before = value(c, s.retention("demo"));
      assertThat(nonTrivial(before)).as("the sample state has RetentionState.%s", c.getName()).isTrue();
      assertThat(value(c, back.retention("demo"))).as("RetentionState.%s survives a snapshot", c.getName()).isEqualTo(before);
    }
    assertThat(app.groups()).as("a pinned group past the window is held, and held after a snapshot")
        .anyMatch(g -> s.retention("demo").isPinned(g.groupId())
            && app.groupsNewestFirst(g.group().branch(), g.group().runtimeVersion()).indexOf(g) >= StateFold.WINDOW);
    assertThat(back.tokensBySha256()).isEqualTo(s.tokensBySha256());
  }

  private static Object value(RecordComponent c, Object o) {
    try {
      return c.getAccessor().invoke(o);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static boolean nonTrivial(Object o) {
    if (o == null) {
      return false;
    }
    if (o instanceof Collection) {
      return !((Collection<?>) o).isEmpty();
    }
    if (o instanceof Map) {
      return !((Map<?, ?>) o).isEmpty();
    }
    if (o instanceof GroupHistory) {
      return ((GroupHistory) o).size() > 0;
    }
    if (o instanceof IdempotencyWindow) {
      return ((IdempotencyWindow) o).size() > 0;
    }
    return true;
  }
}
