package dev.updraft.controlplane.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The fold as a pure function: replays, duplicates, unknown types, rollouts and renewals. */
class StateFoldTest {
  static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  static EventEnvelope e(long seq, EventPayload p) {
    return new EventEnvelope(new UUID(0, seq), p.type(), 1, "demo", seq, T0.plusSeconds(seq), "admin", p);
  }

  static UpdateGroup group(String id, String branch, Rollout rollout, String... platforms) {
    List<PlatformUpdate> ps = new ArrayList<>();
    for (String p : platforms) {
      ps.add(new PlatformUpdate(p, id + "-" + p, "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "-" + p + "\"}", null, "k", List.of("k")));
    }
    return new UpdateGroup(id, UpdateGroup.KIND_UPDATE, branch, "1", null, null, "idem-" + id, null, rollout, ps);
  }

  static List<EventEnvelope> log() {
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

  static ControlState fold(List<EventEnvelope> events) {
    ControlState s = ControlState.EMPTY;
    for (EventEnvelope ev : events) {
      s = StateFold.apply(s, ev);
    }
    return s;
  }

  @Test
  void foldingTheSameLogTwiceGivesEqualStatesForEveryPrefix() {
    List<EventEnvelope> log = log();
    for (int n = 0; n <= log.size(); n++) {
      assertThat(fold(log.subList(0, n))).isEqualTo(fold(new ArrayList<>(log.subList(0, n))));
    }
    assertThat(fold(log).app("demo").lastSequence()).isEqualTo(9);
  }

  @Test
  void tracksRolloutsRevertsTokensAndRenewals() {
    AppState app = fold(log()).app("demo");
    assertThat(app.group("g2").rollout().status()).isEqualTo(RolloutState.REVERTED);
    assertThat(app.group("g2").rollout().percentage()).isEqualTo(40);
    assertThat(app.group("g2").revertedBy()).isEqualTo("g3");
    assertThat(app.latestWith("main", "1", "ios").groupId()).isEqualTo("g3");
    assertThat(app.activeRollout("main", "1")).isNull();
    assertThat(app.tokens().get("tok_1").revoked()).isTrue();
    assertThat(fold(log()).tokensBySha256()).isEmpty();
    assertThat(app.group("g3").platform("ios").body()).isEqualTo("{\"renewed\":true}");
    assertThat(app.group("g3").platform("ios").createdAt()).isEqualTo("2026-11-30T10:00:00.000Z");
    assertThat(app.group("g3").renderedAt().get("g3-ios")).isEqualTo(T0.plusSeconds(9));
    assertThat(app.idempotencyKeys().get("idem-g1")).isEqualTo("g1");
    // the audit of this log (9 entries, the revert's naming its reason and replacement): the ingester's HistoryProjectionIT
  }

  @Test
  void whileARolloutIsActiveItsControlStaysServable() {
    AppState app = fold(log().subList(0, 5)).app("demo");
    assertThat(app.servable())
        .containsExactlyInAnyOrder(
            new AppState.Servable("g2", "ios"), new AppState.Servable("g2", "android"),
            new AppState.Servable("g1", "ios"), new AppState.Servable("g1", "android"));
    assertThat(fold(log()).app("demo").servable())
        .containsExactlyInAnyOrder(new AppState.Servable("g3", "ios"), new AppState.Servable("g3", "android"));
  }

  @Test
  void skipsDuplicatesAndCountsUnknownTypesInTheSequence() {
    List<EventEnvelope> log = new ArrayList<>(log().subList(0, 3));
    ControlState s = fold(log);
    assertThat(StateFold.apply(s, log.get(2))).isEqualTo(s);
    ControlState after = StateFold.applyUnknown(s, new Decoded.Unknown("app.renamed", 2, "demo", 4));
    assertThat(after.app("demo").lastSequence()).isEqualTo(4);
    assertThat(StateFold.apply(ControlState.EMPTY, log.get(1))).isEqualTo(ControlState.EMPTY);
  }
}
