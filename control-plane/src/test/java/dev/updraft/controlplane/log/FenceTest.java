package dev.updraft.controlplane.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The fence decision on descriptions as Kafka 4.1's coordinator gives them (transaction version 2: every
 * end of a transaction bumps the epoch). The writer's transaction was open at producer id 0, epoch 2.
 */
class FenceTest {
  static final long ID = 0;
  static final int EPOCH = 2;

  static TransactionDescription seen(TransactionState state, long producerId, int epoch) {
    Set<TopicPartition> parts = state == TransactionState.ONGOING ? Set.of(new TopicPartition("updraft.events", 1)) : Set.of();
    return new TransactionDescription(0, state, producerId, epoch, 60_000, OptionalLong.of(1_796_116_081_640L), parts);
  }

  @Test
  void shouldWaitWhileTheTransactionIsStillOpenOrEnding() {
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.ONGOING, ID, EPOCH), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.PREPARE_COMMIT, ID, EPOCH + 1), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.PREPARE_EPOCH_FENCE, ID, EPOCH + 1), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.PREPARE_ABORT, ID, EPOCH + 1), true)).isEqualTo(Fence.Verdict.UNDECIDED);
  }

  @Test
  void shouldSayNotFencedWhenTheWritersOwnCommitEndedIt() {
    // version 2: the commit bumps the epoch once
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.COMPLETE_COMMIT, ID, EPOCH + 1), false)).isEqualTo(Fence.Verdict.NOT_FENCED);
    // version 1: no bump
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.COMPLETE_COMMIT, ID, EPOCH), false)).isEqualTo(Fence.Verdict.NOT_FENCED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.COMPLETE_ABORT, ID, EPOCH), false)).isEqualTo(Fence.Verdict.NOT_FENCED);
  }

  @Test
  void shouldWaitForTheNewProducersRetryAfterAnAbortThenSayNotFencedWhenNoneCame() {
    // the race recorded in SecondControlPlaneIT: the new producer's InitProducerId aborted the open
    // transaction (epoch 3) and retries later; the writer's commit meanwhile got INVALID_TXN_STATE
    TransactionDescription aborted = seen(TransactionState.COMPLETE_ABORT, ID, EPOCH + 1);
    assertThat(Fence.judge(ID, EPOCH, aborted, false)).isEqualTo(Fence.Verdict.UNDECIDED);
    // no retry within the grace: the coordinator's timeout aborted it, nobody took the id
    assertThat(Fence.judge(ID, EPOCH, aborted, true)).isEqualTo(Fence.Verdict.NOT_FENCED);
  }

  @Test
  void shouldSayFencedOnceAnotherProducerInitialised() {
    // the retry came: epoch 4, empty (no transaction yet), then its own transactions
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.EMPTY, ID, EPOCH + 2), false)).isEqualTo(Fence.Verdict.FENCED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.ONGOING, ID, EPOCH + 2), false)).isEqualTo(Fence.Verdict.FENCED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.COMPLETE_COMMIT, ID, EPOCH + 9), false)).isEqualTo(Fence.Verdict.FENCED);
    // version 1: the new producer's epoch is one above the aborted transaction's
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.EMPTY, ID, EPOCH + 1), false)).isEqualTo(Fence.Verdict.FENCED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.ONGOING, ID, EPOCH + 1), false)).isEqualTo(Fence.Verdict.FENCED);
    // another producer id (the epoch ran out for the new producer)
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.EMPTY, 7, 0), false)).isEqualTo(Fence.Verdict.FENCED);
  }

  @Test
  void shouldNotDecideWithoutAnAnswerOrWithAnUnknownOwnerOrAnImpossibleState() {
    assertThat(Fence.judge(ID, EPOCH, null, true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(-1, -1, seen(TransactionState.EMPTY, ID, EPOCH + 2), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.EMPTY, ID, EPOCH), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.COMPLETE_COMMIT, ID, EPOCH - 1), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    assertThat(Fence.judge(ID, EPOCH, seen(TransactionState.UNKNOWN, ID, EPOCH + 1), true)).isEqualTo(Fence.Verdict.UNDECIDED);
    // a new producer id after the writer's own commit exhausted the epoch may be the coordinator's rotation
    assertThat(Fence.judge(ID, Fence.EXHAUSTED_EPOCH - 1, seen(TransactionState.COMPLETE_COMMIT, 7, 0), true)).isEqualTo(Fence.Verdict.UNDECIDED);
  }
}
