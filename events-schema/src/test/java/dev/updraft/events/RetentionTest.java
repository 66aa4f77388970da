package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.events.Retention.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RetentionTest {

  private static List<Entry> line(int n) {
    List<Entry> out = new ArrayList<>();
    for (int i = n; i >= 1; i--) {
      out.add(new Entry("g" + i, false, null));
    }
    return out;
  }

  @Test
  void holdsTheNewestWindowOfALine() {
    assertThat(Retention.held(line(10), 6)).containsExactlyInAnyOrder("g10", "g9", "g8", "g7", "g6", "g5");
    assertThat(Retention.held(line(3), 6)).containsExactlyInAnyOrder("g3", "g2", "g1");
    assertThat(Retention.EDGE_WINDOW).isEqualTo(FailedUpdates.DEPTH + 1);
    assertThat(Retention.CONTROL_PLANE_WINDOW).isGreaterThanOrEqualTo(Retention.EDGE_WINDOW);
  }

  @Test
  void holdsTheControlOfARunningRolloutInTheWindowAndPinnedGroups() {
    List<Entry> l = new ArrayList<>(line(10));
    l.set(0, new Entry("g10", true, "g1"));
    l.set(1, new Entry("g9", false, "g2")); // finished: its control is not held
    assertThat(Retention.held(l, 6)).contains("g1").doesNotContain("g2", "g4");
    assertThat(Retention.held(l, 6, id -> id.equals("g3"))).contains("g1", "g3").doesNotContain("g2");
    assertThatThrownBy(() -> Retention.held(l, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void isMonotoneInTheWindow() {
    Random r = new Random(7);
    for (int round = 0; round < 200; round++) {
      List<Entry> l = new ArrayList<>();
      int n = 1 + r.nextInt(30);
      for (int i = n; i >= 1; i--) {
        l.add(new Entry("g" + i, r.nextInt(4) == 0, r.nextBoolean() ? "g" + (1 + r.nextInt(n)) : null));
      }
      Set<String> small = Retention.held(l, Retention.EDGE_WINDOW);
      Set<String> big = Retention.held(l, Retention.CONTROL_PLANE_WINDOW);
      assertThat(big).containsAll(small);
      // pruning the larger state to the smaller window gives the smaller state
      List<Entry> kept = new ArrayList<>();
      for (Entry e : l) {
        if (big.contains(e.groupId())) {
          kept.add(e);
        }
      }
      assertThat(Retention.held(kept, Retention.EDGE_WINDOW)).isEqualTo(small);
    }
  }
}
