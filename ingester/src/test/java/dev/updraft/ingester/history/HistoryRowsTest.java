package dev.updraft.ingester.history;

import static dev.updraft.ingester.history.HistoryEvents.e;
import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventType;
import dev.updraft.ingester.history.HistoryRows.AppPosition;
import dev.updraft.ingester.history.HistoryRows.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryRowsTest {
  private static AppPosition at(long last, boolean deleted) {
    return new AppPosition("demo", HistoryEvents.T0, last, deleted, List.of());
  }

  @Test
  void theProjectionSkipsWhatTheFoldSkips() {
    assertThat(HistoryRows.verdict(null, EventType.APP_CREATED, 1)).isEqualTo(Verdict.CREATE);
    assertThat(HistoryRows.verdict(at(3, true), EventType.APP_CREATED, 1)).as("created again after a delete").isEqualTo(Verdict.CREATE);
    assertThat(HistoryRows.verdict(at(3, false), EventType.APP_CREATED, 4)).isEqualTo(Verdict.EXISTS);
    assertThat(HistoryRows.verdict(null, EventType.UPDATE_PUBLISHED, 2)).isEqualTo(Verdict.UNKNOWN_APP);
    assertThat(HistoryRows.verdict(at(3, true), EventType.UPDATE_PUBLISHED, 4)).isEqualTo(Verdict.UNKNOWN_APP);
    assertThat(HistoryRows.verdict(at(3, false), EventType.UPDATE_PUBLISHED, 3)).as("a redelivery").isEqualTo(Verdict.DUPLICATE);
    assertThat(HistoryRows.verdict(at(3, false), EventType.UPDATE_PUBLISHED, 4)).isEqualTo(Verdict.APPLY);
    assertThat(HistoryRows.verdict(at(3, false), EventType.UPDATE_PUBLISHED, 6)).as("a gap is applied").isEqualTo(Verdict.APPLY);
    assertThat(HistoryRows.verdict(at(3, false), new Decoded.Unknown("app.renamed", 2, "demo", 4))).isEqualTo(Verdict.APPLY);
    assertThat(HistoryRows.verdict(at(4, false), new Decoded.Unknown("app.renamed", 2, "demo", 4))).isEqualTo(Verdict.DUPLICATE);
  }

  @Test
  void anAuditRowIsWhatTheApiShowedPlusWhereTheEventIs() {
    EventEnvelope ev = e(4, new UpdatePublished(HistoryEvents.group("g2", "main", new Rollout("r2", 10, "g1", null), "ios", "android")));
    HistoryRows.AuditRow row = HistoryRows.audit(at(3, false), ev, AuditSummaries.Prior.NONE, 2, 41);
    assertThat(row.sequence()).isEqualTo(4);
    assertThat(row.eventId()).isEqualTo(ev.eventId().toString());
    assertThat(row.type()).isEqualTo("update.published");
    assertThat(row.occurredAt()).isEqualTo(ev.occurredAt());
    assertThat(row.actor()).isEqualTo("admin");
    assertThat(row.summary()).isEqualTo("published group g2 on branch main, runtime 1 (ios, android) as a rollout at 10%");
    assertThat(row.appCreatedAt()).isEqualTo(HistoryEvents.T0);
    assertThat(row.partition()).isEqualTo(2);
    assertThat(row.offset()).isEqualTo(41);
    HistoryRows.AuditRow unknown = HistoryRows.audit(at(4, false), new Decoded.Unknown("app.renamed", 2, "demo", 5), 2, 42);
    assertThat(unknown.eventId()).isNull();
    assertThat(unknown.occurredAt()).isNull();
    assertThat(unknown.type()).isEqualTo("app.renamed");
  }

  @Test
  void aGroupRowKeepsThePayloadToShowAndRepublishIt() {
    UpdateGroup g = HistoryEvents.group("g2", "main", new Rollout("r2", 10, "g1", new RolloutGuard(2.5, 100, 3600)), "ios", "android");
    EventEnvelope ev = e(4, new UpdatePublished(g));
    HistoryRows.GroupRow row = HistoryRows.group(at(3, false), ev, g, 0, 7);
    assertThat(row.groupId()).isEqualTo("g2");
    assertThat(row.sequence()).isEqualTo(4);
    assertThat(row.branch()).isEqualTo("main");
    assertThat(row.runtimeVersion()).isEqualTo("1");
    assertThat(row.platforms()).containsExactly("ios", "android");
    assertThat(row.updateIds()).containsExactly("g2-ios", "g2-android");
    assertThat(row.publishedAt()).isEqualTo(ev.occurredAt());
    assertThat(EventCodec.group(row.groupJson())).isEqualTo(g);
    assertThat(row.tuple().size()).isEqualTo(25);
    assertThat(row.tuple().getValue(17)).isEqualTo(HistoryRows.ACTIVE);
    assertThat(row.tuple().getValue(15)).isEqualTo(10);
    assertThat(row.tuple().getValue(20)).isEqualTo(2.5);
  }

  @Test
  void theKeyRingFollowsRegistrations() {
    AppPosition pos = at(3, false);
    SigningKeyRegistered ring = new SigningKeyRegistered("k1", "pem", "dd".repeat(32), "{}", "sig", List.of(), null, true);
    assertThat(HistoryRows.registerKey(pos, ring)).isFalse();
    assertThat(HistoryRows.registerKey(pos, ring)).isTrue();
    SigningKeyRegistered other = new SigningKeyRegistered("k2", "pem", "ee".repeat(32), "{}", "sig", List.of(), null, true);
    assertThat(HistoryRows.registerKey(pos, other)).isFalse();
    assertThat(pos.keyIds).containsExactly("k1", "k2");
    HistoryRows.registerKey(pos, new SigningKeyRegistered("k3", "pem", "ff".repeat(32), "{}", "sig", List.of()));
    assertThat(pos.keyIds).as("a registration from before the ring replaces every key").containsExactly("k3");
  }
}
