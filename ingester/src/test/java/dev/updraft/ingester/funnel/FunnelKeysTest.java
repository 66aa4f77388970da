package dev.updraft.ingester.funnel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What an ingester's batches send of their funnel rows: what a committed write held is skipped next time, unless the
 * next write reads another count of deletions; nothing is learnt from a write that did not commit; at most the bound is
 * remembered, the recently used first.
 */
class FunnelKeysTest {
  static final FunnelKeys.Epoch E1 = new FunnelKeys.Epoch(0, 900, 1_000);
  static final FunnelKeys.Epoch E2 = new FunnelKeys.Epoch(1, 901, 1_000);
  static final FunnelKeys.Epoch RESTARTED = new FunnelKeys.Epoch(0, 900, 2_000);

  /** A batch whose devices all launched update u1 (one row each). */
  static FunnelRows launches(String... clients) {
    FunnelRows f = new FunnelRows();
    for (String c : clients) {
      f.add(CheckIn.builder().appId("app").platform("ios").runtimeVersion("1").clientId(c).currentUpdateId("u1")
          .outcome(CheckIn.OUTCOME_NO_UPDATE).atEpochMillis(10).build());
    }
    return f;
  }

  /** The devices whose rows a write sends, reading {@code epoch} in its transaction; committed when {@code commit}. */
  static List<String> write(FunnelKeys keys, FunnelKeys.Epoch epoch, boolean commit, String... clients) {
    FunnelPlan p = keys.plan(launches(clients));
    Tuple t = p.tuple(epoch);
    if (commit) {
      keys.written(p);
    }
    return t == null ? List.of() : Arrays.asList((String[]) t.getValue(3));
  }

  static List<String> write(FunnelKeys keys, FunnelKeys.Epoch epoch, String... clients) {
    return write(keys, epoch, true, clients);
  }

  @Test
  void aCommittedWritesRowsAreSkippedByTheNextOnesAndCounted() {
    FunnelKeys keys = new FunnelKeys(1_000, new Random(1));
    assertThat(write(keys, E1, "d1", "d2")).as("nothing known yet").containsExactly("d1", "d2");
    FunnelPlan p = keys.plan(launches("d1", "d2", "d3"));
    assertThat(p.known()).isEqualTo(2);
    Tuple t = p.tuple(E1);
    assertThat(Arrays.asList((String[]) t.getValue(3))).containsExactly("d3");
    assertThat(keys.written(p)).as("rows skipped").isEqualTo(2);
    assertThat(write(keys, E1, "d1", "d2", "d3")).as("all known").isEmpty();
  }

  @Test
  void nothingIsLearntFromAWriteThatDidNotCommit() {
    FunnelKeys keys = new FunnelKeys(1_000, new Random(1));
    write(keys, E1, "d0");
    assertThat(write(keys, E1, false, "d1", "d2")).containsExactly("d1", "d2");
    assertThat(write(keys, E1, "d1", "d2")).as("the same rows again: the first write rolled back").containsExactly("d1", "d2");
  }

  @Test
  void aWriteReadingAnotherCountOfDeletionsSendsEveryRowAndWhatWasKnownIsForgotten() {
    FunnelKeys keys = new FunnelKeys(1_000, new Random(1));
    write(keys, E1, "d1", "d2", "d3");
    assertThat(write(keys, E2, "d1", "d4")).as("rows were deleted since d1 was learnt").containsExactly("d1", "d4");
    assertThat(write(keys, E2, "d1", "d2", "d4")).as("d2 was learnt before the deletion").containsExactly("d2");
    assertThat(write(keys, RESTARTED, "d1", "d2")).as("another server start").containsExactly("d1", "d2");
    assertThat(write(keys, null, "d1", "d2")).as("the count could not be read").containsExactly("d1", "d2");
    assertThat(write(keys, RESTARTED, "d1", "d2")).as("nothing was known after that").containsExactly("d1", "d2");
    assertThat(write(keys, RESTARTED, "d1", "d2")).isEmpty();
  }

  @Test
  void holdsAtMostTheBoundAndKeepsTheDevicesThatComeBack() {
    FunnelKeys keys = new FunnelKeys(100, new Random(1));
    List<String> sentForRegular = new ArrayList<>();
    for (int b = 0; b < 100; b++) {
      String[] batch = new String[11];
      for (int i = 0; i < 10; i++) {
        batch[i] = "new-" + b + "-" + i;
      }
      batch[10] = "regular";
      List<String> sent = write(keys, E1, batch);
      if (sent.contains("regular")) {
        sentForRegular.add("batch " + b);
      }
      assertThat(keys.size()).isLessThanOrEqualTo(100);
    }
    assertThat(sentForRegular).as("a device in every batch is sent once").containsExactly("batch 0");
    assertThat(write(keys, E1, "new-0-0", "new-0-1", "new-99-0")).as("the first devices were forgotten, the last not")
        .containsExactly("new-0-0", "new-0-1");
  }

  @Test
  void offRemembersNothingAndReadsNoCount() {
    FunnelPlan p = FunnelKeys.OFF.plan(launches("d1"));
    assertThat(p.readsEpoch()).isFalse();
    assertThat(Arrays.asList((String[]) p.tuple((FunnelKeys.Epoch) null).getValue(3))).containsExactly("d1");
    assertThat(FunnelKeys.OFF.written(p)).isZero();
    assertThat(write(FunnelKeys.OFF, null, "d1")).containsExactly("d1");
    assertThat(FunnelKeys.OFF.size()).isZero();
    assertThat(FunnelKeys.OFF.plan(new FunnelRows())).as("a batch without funnel rows").isNull();
  }
}
