package dev.updraft.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.history.StoredGroup;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The merge of the held groups with the history projection's, newest first. */
class GroupReadsTest {
  static final Instant T = Instant.parse("2026-03-01T00:00:00Z");

  static GroupState group(String id, String branch, long seq) {
    UpdateGroup g = new UpdateGroup(id, UpdateGroup.KIND_UPDATE, branch, "1", null, null, null, null, null,
        List.of(new PlatformUpdate("ios", id + "-ios", "2026-03-01T00:00:00.000Z", "{}", null, null, null)));
    return new GroupState(g, seq, T.plusSeconds(seq), "admin", Map.of(), null, null);
  }

  static AppState app(GroupState... held) {
    return new AppState("shop", null, T, "admin", 100, Map.of(), null, Map.of(), List.of(held), List.of());
  }

  static List<String> ids(List<GroupState> gs) {
    List<String> out = new ArrayList<>();
    gs.forEach(g -> out.add(g.groupId()));
    return out;
  }

  @Test
  void heldGroupsWinAndTheStoredOnesFollowByTheirSequence() {
    GroupState h9 = group("h9", "main", 9);
    GroupState h8 = group("h8", "main", 8);
    AppState a = app(h8, h9);
    List<StoredGroup> stored = List.of(
        new StoredGroup(group("h9", "main", 9), false), new StoredGroup(group("s7", "main", 7), false),
        new StoredGroup(group("s5", "beta", 5), true), new StoredGroup(group("s3", "main", 3), false));
    assertThat(ids(GroupReads.merge(a, List.of(h9, h8), stored, true, 10))).containsExactly("h9", "h8", "s7", "s5", "s3");
    assertThat(GroupReads.merge(a, List.of(h9, h8), stored, true, 10).get(0)).as("the held one, not the stored copy").isSameAs(h9);
    assertThat(ids(GroupReads.merge(a, List.of(h9, h8), stored, true, 3))).containsExactly("h9", "h8", "s7");
  }

  @Test
  void whileTheProjectionIsBehindAStoredGroupNewerThanAHeldOneOfItsLineIsLeftOut() {
    GroupState h9 = group("h9", "main", 9);
    GroupState h4 = group("h4", "main", 4);
    AppState a = app(h4, h9);
    List<StoredGroup> stored = List.of(new StoredGroup(group("s7", "main", 7), false), new StoredGroup(group("s6", "beta", 6), false),
        new StoredGroup(group("s2", "main", 2), false));
    assertThat(ids(GroupReads.merge(a, List.of(h9, h4), stored, false, 10)))
        .as("s7 would still be held unless it was deleted since the projection's position").containsExactly("h9", "s6", "h4", "s2");
    assertThat(ids(GroupReads.merge(a, List.of(h9, h4), stored, true, 10))).containsExactly("h9", "s7", "s6", "h4", "s2");
  }
}
