package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.controlplane.commands.Prologue.Maker;
import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.StateFold;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventPayload;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a publish, republish or roll back with an idempotency key that was used before gets, judged on the
 * writer's state, and the order of the checks every group-making command starts with.
 */
class IdempotencyTest {
  static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  static EventEnvelope e(long seq, EventPayload p) {
    return new EventEnvelope(new UUID(0, seq), p.type(), 1, "demo", seq, T0.plusSeconds(seq), "admin", p);
  }

  static UpdateGroup group(String id, String kind, String key) {
    PlatformUpdate ios = new PlatformUpdate("ios", id + "-ios", "2026-11-30T10:00:00.000Z", "{}", null, "k", List.of("k"));
    return new UpdateGroup(id, kind, "main", "1", null, null, key, null, null, List.of(ios));
  }

  static ControlState state() {
    ControlState s = ControlState.EMPTY;
    for (EventEnvelope ev : List.of(
        e(1, new AppCreated("Demo")),
        e(2, new UpdatePublished(group("g1", UpdateGroup.KIND_UPDATE, "key-publish"))),
        e(3, new RolledBackToEmbedded(group("g2", UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, "key-rollback"))))) {
      s = StateFold.apply(s, ev);
    }
    return s;
  }

  static AppState app() {
    return state().app("demo");
  }

  @Test
  void aRetryOfTheSamePublishGetsTheEarlierGroupAndANewKeyNothing() throws CommandException {
    AppState app = app();
    Published again = UpdateCommands.replayOfPublish(app, "key-publish", "main", "1");
    assertThat(again.replayed()).isTrue();
    assertThat(again.group().groupId()).isEqualTo("g1");
    assertThat(UpdateCommands.replayOfPublish(app, "key-publish", null, null).group().groupId()).as("fields not given are not compared").isEqualTo("g1");
    assertThat(UpdateCommands.replayOfPublish(app, "key-new", "main", "1")).isNull();
    assertThat(UpdateCommands.replayOfPublish(app, null, "main", "1")).isNull();
  }

  @Test
  void aKeyReusedForAnotherBranchRuntimeOrKindIsAConflictNamingTheEarlierGroup() {
    AppState app = app();
    assertThatThrownBy(() -> UpdateCommands.replayOfPublish(app, "key-publish", "beta", "1"))
        .isInstanceOfSatisfying(CommandException.class, e -> {
          assertThat(e.status()).isEqualTo(409);
          assertThat(e.code()).isEqualTo("idempotency-key-reused");
          assertThat(e.getMessage()).contains("g1", "branch main", "a different publish needs a new key");
        });
    assertThatThrownBy(() -> UpdateCommands.replayOfPublish(app, "key-publish", "main", "2"))
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("idempotency-key-reused"));
    assertThatThrownBy(() -> UpdateCommands.replayOfPublish(app, "key-rollback", "main", "1"))
        .as("a key a roll back to embedded used")
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).contains("g2"));
  }

  @Test
  void aRepublishRetryGetsTheEarlierGroupAndAKeyReusedForAnotherBranchOrRuntimeIsAConflict() {
    ControlState s = state();
    Prologue.Start retry = Prologue.start(s, "demo", Maker.REPUBLISH, "key-rollback", "main", "1");
    assertThat(retry.replay().replayed()).isTrue();
    assertThat(retry.replay().group().groupId()).as("a republish makes a group of its source's kind").isEqualTo("g2");
    assertThat(Prologue.start(s, "demo", Maker.REPUBLISH, "key-new", "main", "1").replay()).isNull();
    assertThatThrownBy(() -> Prologue.start(s, "demo", Maker.REPUBLISH, "key-publish", "beta", "1"))
        .isInstanceOfSatisfying(CommandException.class, e -> {
          assertThat(e.status()).isEqualTo(409);
          assertThat(e.code()).isEqualTo("idempotency-key-reused");
          assertThat(e.getMessage()).contains("g1", "branch main", "a different republish needs a new key");
        });
    assertThatThrownBy(() -> Prologue.start(s, "demo", Maker.REPUBLISH, "key-publish", "main", "2"))
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("idempotency-key-reused"));
  }

  @Test
  void aRollBackRetryGetsTheEarlierGroupAndAKeyReusedForAnotherBranchRuntimeOrKindIsAConflict() {
    ControlState s = state();
    Prologue.Start retry = Prologue.start(s, "demo", Maker.ROLLBACK_TO_EMBEDDED, "key-rollback", "main", "1");
    assertThat(retry.replay().group().groupId()).isEqualTo("g2");
    assertThatThrownBy(() -> Prologue.start(s, "demo", Maker.ROLLBACK_TO_EMBEDDED, "key-rollback", "beta", "1"))
        .isInstanceOfSatisfying(CommandException.class, e -> {
          assertThat(e.status()).isEqualTo(409);
          assertThat(e.code()).isEqualTo("idempotency-key-reused");
          assertThat(e.getMessage()).contains("g2", "a different roll back needs a new key");
        });
    assertThatThrownBy(() -> Prologue.start(s, "demo", Maker.ROLLBACK_TO_EMBEDDED, "key-rollback", "main", "2"))
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("idempotency-key-reused"));
    assertThatThrownBy(() -> Prologue.start(s, "demo", Maker.ROLLBACK_TO_EMBEDDED, "key-publish", "main", "1"))
        .as("a key a publish used")
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).contains("g1"));
  }

  @Test
  void thePrologueChecksTheAppThenTheKeyThenTheBranchAndRuntimeThenTheRollout() {
    ControlState s = StateFold.apply(
        state(), e(4, new UpdatePublished(new UpdateGroup("g3", UpdateGroup.KIND_UPDATE, "main", "1", null, null, null, null,
            new EventPayload.Rollout("r3", 10, "g1", null),
            List.of(new PlatformUpdate("ios", "g3-ios", "2026-11-30T10:01:00.000Z", "{}", null, "k", List.of("k")))))));
    for (Maker m : Maker.values()) {
      assertThatThrownBy(() -> Prologue.start(s, "nope", m, "key-publish", "", "1"))
          .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("app-not-found"));
      assertThatThrownBy(() -> Prologue.start(s, "demo", m, "key-publish", "other", ""))
          .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("idempotency-key-reused"));
      assertThatThrownBy(() -> Prologue.start(s, "demo", m, "key-new", "Not A Branch", "1"))
          .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("invalid-branch"));
      assertThatThrownBy(() -> Prologue.start(s, "demo", m, "key-new", "main", ""))
          .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("empty-runtime-version"));
      assertThatThrownBy(() -> Prologue.start(s, "demo", m, "key-new", "main", "1"))
          .isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo("rollout-in-progress");
            assertThat(e.getMessage()).contains("g3");
          });
    }
    assertThat(Prologue.start(s, "demo", Maker.PUBLISH, "key-publish", "main", "1").replay().group().groupId())
        .as("a retry is answered while a rollout runs").isEqualTo("g1");
  }
}
