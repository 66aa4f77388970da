package dev.updraft.ingester.history;

import static dev.updraft.ingester.history.HistoryEvents.e;
import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.EventType;
import dev.updraft.ingester.history.AuditSummaries.Prior;
import dev.updraft.ingester.history.AuditSummaries.RolloutBefore;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditSummariesTest {

  @Test
  void everyEventTypeSaysWhatHappened() {
    for (EventType type : EventType.values()) {
      String summary = AuditSummaries.of(e(2, HistoryEvents.sample(type)), Prior.NONE);
      assertThat(summary).as(type + " says what happened").isNotBlank();
    }
  }

  @Test
  void auditSaysAKeyRetirementWasForcedAndWhatItOverrode() {
    assertThat(AuditSummaries.of(e(3, new EventPayload.SigningKeyRetired("k2", null, null, null)), Prior.NONE))
        .isEqualTo("retired signing key keyid=k2");
    assertThat(AuditSummaries.of(e(4, new EventPayload.SigningKeyRetired("k2", true, 3L, "2026-12-06T22:00:00Z")), Prior.NONE))
        .isEqualTo("retired signing key keyid=k2 (forced: 3 device(s) had asked for it, last at 2026-12-06T22:00:00Z)");
    assertThat(AuditSummaries.of(e(5, new EventPayload.SigningKeyRetired("k3", true, 0L, null)), Prior.NONE))
        .isEqualTo("retired signing key keyid=k3 (forced)");
    assertThat(AuditSummaries.of(e(6, new EventPayload.SigningKeyRetired("k4", true, null, null)), Prior.NONE))
        .isEqualTo("retired signing key keyid=k4 (forced: whether devices still asked for it was unknown)");
  }

  @Test
  void auditSaysAChannelIsPaused() {
    ChannelMapped mapped = new ChannelMapped("production", "main", null);
    assertThat(AuditSummaries.of(e(3, mapped.withPaused(true)), Prior.NONE))
        .isEqualTo("mapped channel production to branch main, paused: its devices get no update");
    assertThat(AuditSummaries.of(e(4, mapped.withPaused(true).withPaused(false)), Prior.NONE))
        .isEqualTo("mapped channel production to branch main");
  }

  @Test
  void auditSaysWhatARolloutChangeChanged() {
    RolloutGuard guard = new RolloutGuard(2.5, 100, 3600);
    assertThat(AuditSummaries.of(e(5, new RolloutChanged("g2", "r2", 40, guard)), new Prior(new RolloutBefore(40, null), 0, false)))
        .isEqualTo("rollout of group g2: guard set: revert above 2.5% failures among at least 100 devices within 3600 s");
    assertThat(AuditSummaries.of(e(6, new RolloutChanged("g2", "r2", 60, guard)), new Prior(new RolloutBefore(40, guard), 0, false)))
        .isEqualTo("rollout of group g2 set to 60% (from 40%)");
    assertThat(AuditSummaries.of(e(7, new RolloutChanged("g2", "r2", 60, null)), new Prior(new RolloutBefore(60, guard), 0, false)))
        .isEqualTo("rollout of group g2: guard removed");
    assertThat(AuditSummaries.of(e(8, new RolloutChanged("g2", "r2", 60, null)), new Prior(new RolloutBefore(60, null), 0, false)))
        .isEqualTo("rollout of group g2 unchanged at 60%");
    assertThat(AuditSummaries.of(e(8, new RolloutChanged("g9", "r9", 30, null)), Prior.NONE))
        .as("a group the projection does not know").isEqualTo("rollout of group g9 set to 30%");
  }

  @Test
  void deletionsCountWhatTheyRemoved() {
    assertThat(AuditSummaries.of(e(3, new EventPayload.UpdatesDeleted(List.of("g1", "g2"), "forced")), new Prior(null, 1, false)))
        .isEqualTo("deleted 1 update group g1, g2 (forced)");
    assertThat(AuditSummaries.of(e(3, new EventPayload.BranchDeleted("pr-12")), new Prior(null, 40, false)))
        .isEqualTo("deleted branch pr-12 and its 40 update groups");
  }

  @Test
  void aKeyRegistrationSaysWhetherItReplacedAKey() {
    SigningKeyRegistered k = (SigningKeyRegistered) HistoryEvents.sample(EventType.SIGNING_KEY_REGISTERED);
    assertThat(AuditSummaries.of(e(3, k), new Prior(null, 0, true))).contains("replacing every other key");
    SigningKeyRegistered ring = new SigningKeyRegistered("k2", "pem", "dd".repeat(32), "{}", "sig", List.of(), null, true);
    assertThat(AuditSummaries.of(e(3, ring), new Prior(null, 0, true))).contains(", replacing the key of that keyid");
    assertThat(AuditSummaries.of(e(3, ring), Prior.NONE)).contains(", added to the key ring");
  }

  @Test
  void anUnknownTypeSaysWhichSchemaVersion() {
    assertThat(AuditSummaries.unknown(2)).isEqualTo("event of a type this version does not know (schema version 2)");
  }
}
