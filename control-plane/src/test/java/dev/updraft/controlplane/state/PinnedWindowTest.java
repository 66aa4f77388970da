package dev.updraft.controlplane.state;

import static dev.updraft.controlplane.state.StateFoldTest.e;
import static dev.updraft.controlplane.state.StateFoldTest.group;
import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A group pinned with {@code update.pinned} stays in the control plane's window however many newer groups
 * its line gets; unpinned, the next fold of its line drops it. The state stays a function of the log: a
 * snapshot taken anywhere, then the rest of the log, gives the same groups and pins.
 */
class PinnedWindowTest {

  /** An app with groups g1..g{@code n} on main and, after the third, a pin on g1 (and whatever {@code more} adds). */
  private static List<EventEnvelope> pinnedLog(int n, EventPayload... more) {
    List<EventEnvelope> log = new ArrayList<>();
    log.add(e(1, new AppCreated("Demo")));
    for (int i = 1; i <= n; i++) {
      log.add(e(log.size() + 1, new UpdatePublished(group("g" + i, "main", null, "ios"))));
      if (i == 3) {
        log.add(e(log.size() + 1, new UpdatePinned("g1", true)));
      }
    }
    for (EventPayload p : more) {
      log.add(e(log.size() + 1, p));
    }
    return log;
  }

  private static List<String> ids(AppState app, String branch) {
    List<String> out = new ArrayList<>();
    for (GroupState g : app.groupsNewestFirst(branch, "1")) {
      out.add(g.groupId());
    }
    return out;
  }

  @Test
  void aPinnedGroupStaysHeldWhateverArrivesOnItsLine() {
    AppState app = StateFoldTest.fold(pinnedLog(23)).app("demo");
    assertThat(ids(app, "main")).hasSize(StateFold.WINDOW + 1).startsWith("g23").endsWith("g1");
    assertThat(app.group("g2")).as("unpinned groups past the window leave").isNull();
    assertThat(app.group("g1")).isNotNull();
    assertThat(app.latestWith("main", "1", "ios").groupId()).isEqualTo("g23");
  }

  @Test
  void unpinnedTheNextFoldOfItsLineDropsIt() {
    ControlState unpinned = StateFoldTest.fold(pinnedLog(23, new UpdatePinned("g1", false)));
    assertThat(unpinned.retention("demo").isPinned("g1")).isFalse();
    assertThat(unpinned.app("demo").group("g1")).as("held until its line is folded again").isNotNull();

    ControlState otherLine = StateFoldTest.fold(pinnedLog(23, new UpdatePinned("g1", false),
        new UpdatePublished(group("b1", "beta", null, "ios"))));
    assertThat(otherLine.app("demo").group("g1")).as("another line's publish does not touch main").isNotNull();

    ControlState next = StateFoldTest.fold(pinnedLog(23, new UpdatePinned("g1", false),
        new UpdatePublished(group("g24", "main", null, "ios"))));
    assertThat(next.app("demo").group("g1")).isNull();
    assertThat(ids(next.app("demo"), "main")).hasSize(StateFold.WINDOW).startsWith("g24");
  }

  @Test
  void aDeletedPinnedGroupLeavesWithItsPin() {
    ControlState s = StateFoldTest.fold(pinnedLog(23, new UpdatesDeleted(List.of("g1"), null)));
    assertThat(s.app("demo").group("g1")).isNull();
    assertThat(s.retention("demo").pinned()).isEmpty();
    assertThat(s.retention()).as("no settings left: no entry").doesNotContainKey("demo");

    ControlState branch = StateFoldTest.fold(pinnedLog(23, new BranchDeleted("main")));
    assertThat(branch.app("demo").groups()).isEmpty();
    assertThat(branch.retention("demo").pinned()).isEmpty();
  }

  @Test
  void aSnapshotAnywhereHoldsWhatTheReplayHolds() {
    List<EventEnvelope> log = pinnedLog(23, new RetentionSet("main", 5, 86_400L * 30), new UpdatePinned("g1", false),
        new UpdatePinned("g20", true), new UpdatePublished(group("g24", "main", null, "ios")),
        new UpdatePublished(group("g25", "main", null, "ios")));
    for (int i = 26; i <= 40; i++) {
      log.add(e(log.size() + 1, new UpdatePublished(group("g" + i, "main", null, "ios"))));
    }
    ControlState all = StateFoldTest.fold(log);
    assertThat(all.app("demo").group("g1")).isNull();
    assertThat(all.app("demo").group("g20")).as("pinned while in the window, held past it").isNotNull();
    ControlState expected = SnapshotRoundTripTest.withoutAudit(all);
    for (int n = 1; n <= log.size(); n++) {
      ControlState prefix = StateFoldTest.fold(log.subList(0, n));
      ControlState resumed = SnapshotRoundTripTest.fold(SnapshotRoundTripTest.throughSnapshot(prefix, n - 1), log.subList(n, log.size()));
      assertThat(SnapshotRoundTripTest.withoutAudit(resumed)).as("snapshot after %d events", n).isEqualTo(expected);
      assertThat(resumed.retention("demo")).isEqualTo(all.retention("demo"));
    }
  }
}
