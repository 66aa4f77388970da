package dev.updraft.launcher.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Old offsets (with gaps where aborted records and transaction markers were) to the offsets events landed at. */
class OffsetMapTest {
  static OffsetMap map() {
    OffsetMap m = new OffsetMap();
    m.partition(0, 4);
    long[] old = {3, 4, 9, 15};
    for (int i = 0; i < old.length; i++) {
      m.old(0, i, old[i]);
      m.landed(0, i, i);
    }
    return m;
  }

  @Test
  void shouldFindTheNewOffsetOfAnEventOnlyWhereAnEventWas() {
    OffsetMap m = map();
    assertThat(m.exact(0, 9)).isEqualTo(2);
    assertThat(m.exact(0, 15)).isEqualTo(3);
    assertThat(m.exact(0, 10)).as("a transaction marker's offset").isEqualTo(-1);
    assertThat(m.exact(1, 0)).as("a partition the backup lacks").isEqualTo(-1);
  }

  @Test
  void shouldStartAReaderAtTheFirstEventItStillNeeds() {
    OffsetMap m = map();
    assertThat(m.from(0, 0)).isEqualTo(0);
    assertThat(m.from(0, 4)).isEqualTo(1);
    assertThat(m.from(0, 5)).isEqualTo(2);
    assertThat(m.from(0, 15)).isEqualTo(3);
    assertThat(m.from(0, 16)).as("after the last event").isEqualTo(4);
  }

  @Test
  void shouldRefuseAnEventThatNeverLandedOrLandedOutOfOrder() {
    OffsetMap unacked = new OffsetMap();
    unacked.partition(2, 2);
    unacked.old(2, 0, 0);
    unacked.old(2, 1, 1);
    unacked.landed(2, 0, 0);
    assertThatThrownBy(unacked::check).hasMessageContaining("event 1 of partition=2 has no offset");
    OffsetMap swapped = new OffsetMap();
    swapped.partition(0, 2);
    swapped.old(0, 0, 0);
    swapped.old(0, 1, 2);
    swapped.landed(0, 0, 1);
    swapped.landed(0, 1, 0);
    assertThatThrownBy(swapped::check).hasMessageContaining("out of order at event 1");
    map().check();
  }
}
