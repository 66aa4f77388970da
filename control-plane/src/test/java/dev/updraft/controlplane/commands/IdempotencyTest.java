package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.StateFold;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventPayload.AppCreated;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.RolledBackToEmbedded;
import dev.updraft.events.EventPayload.UpdateGroup;
import dev.updraft.events.EventPayload.UpdatePublished;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What a publish with an idempotency key that was used before gets, judged on the writer's state. */
class IdempotencyTest {
  static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  static EventEnvelope e(long seq, EventPayload p) {
    return new EventEnvelope(new UUID(0, seq), p.type(), 1, "demo", seq, T0.plusSeconds(seq), "admin", p);
  }

  static UpdateGroup group(String id, String kind, String key) {
    PlatformUpdate ios = new PlatformUpdate("ios", id + "-ios", "2026-11-30T10:00:00.000Z", "{}", null, "k", List.of("k"));
    return new UpdateGroup(id, kind, "main", "1", null, null, key, null, null, List.of(ios));
  }

  static AppState app() {
    ControlState s = ControlState.EMPTY;
    for (EventEnvelope ev : List.of(
        e(1, new AppCreated("Demo")),
        e(2, new UpdatePublished(group("g1", UpdateGroup.KIND_UPDATE, "key-publish"))),
        e(3, new RolledBackToEmbedded(group("g2", UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, "key-rollback"))))) {
      s = StateFold.apply(s, ev);
    }
    return s.app("demo");
  }

  @Test
  void aRetryOfTheSamePublishGetsTheEarlierGroupAndANewKeyNothing() throws CommandException {
    AppState app = app();
    Published again = Commands.replayOfPublish(app, "key-publish", "main", "1");
    assertThat(again.replayed()).isTrue();
    assertThat(again.group().groupId()).isEqualTo("g1");
    assertThat(Commands.replayOfPublish(app, "key-publish", null, null).group().groupId()).as("fields not given are not compared").isEqualTo("g1");
    assertThat(Commands.replayOfPublish(app, "key-new", "main", "1")).isNull();
    assertThat(Commands.replayOfPublish(app, null, "main", "1")).isNull();
  }

  @Test
  void aKeyReusedForAnotherBranchRuntimeOrKindIsAConflictNamingTheEarlierGroup() {
    AppState app = app();
    assertThatThrownBy(() -> Commands.replayOfPublish(app, "key-publish", "beta", "1"))
        .isInstanceOfSatisfying(CommandException.class, e -> {
          assertThat(e.status()).isEqualTo(409);
          assertThat(e.code()).isEqualTo("idempotency-key-reused");
          assertThat(e.getMessage()).contains("g1", "branch main", "a different publish needs a new key");
        });
    assertThatThrownBy(() -> Commands.replayOfPublish(app, "key-publish", "main", "2"))
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("idempotency-key-reused"));
    assertThatThrownBy(() -> Commands.replayOfPublish(app, "key-rollback", "main", "1"))
        .as("a key a roll back to embedded used")
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).contains("g2"));
  }
}
