package dev.updraft.controlplane.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Settling an append whose commit outcome was unknown, on recorded sequences of what the coordinator and
 * the log answered; one round of questions every 100 ms of a fake clock.
 */
class SettleTest {
  static final List<RecordMetadata> RECORDS = List.of(new RecordMetadata(new TopicPartition("updraft.events", 1), 104, 0, 0L, 0, 0));
  static final Attempt OPEN_AT_EPOCH_2 = new Attempt(RECORDS, 0, 2, true);

  final AtomicLong nanos = new AtomicLong();

  Settlement settle(Attempt attempt, List<TransactionDescription> coordinator, List<Boolean> log) {
    return Settle.settle(attempt, replay(coordinator), replay(log), Duration.ofSeconds(15), Duration.ofSeconds(5), nanos::get,
        () -> nanos.addAndGet(Duration.ofMillis(100).toNanos()));
  }

  /** Answers in order, then the last one again. */
  static <T> Supplier<T> replay(List<T> answers) {
    AtomicInteger next = new AtomicInteger();
    return () -> answers.get(Math.min(next.getAndIncrement(), answers.size() - 1));
  }

  static TransactionDescription seen(TransactionState state, int epoch) {
    return FenceTest.seen(state, 0, epoch);
  }

  @Test
  void shouldRefuseAsFencedWhenTheNewProducerAbortedTheWriteAndTookOver() {
    // the race of SecondControlPlaneIT, as recorded: the abort by the new producer, then its retry
    Settlement s = settle(OPEN_AT_EPOCH_2,
        List.of(seen(TransactionState.COMPLETE_ABORT, 3), seen(TransactionState.COMPLETE_ABORT, 3), seen(TransactionState.EMPTY, 4)),
        List.of(false));
    assertThat(s.outcome()).isEqualTo(Settlement.Outcome.FENCED_NOTHING_WRITTEN);
    assertThat(s.records()).isEmpty();
    assertThat(s.reason()).contains("took over", "epoch=2", "Empty", "epoch=4");
    assertThat(nanos.get()).as("no longer than needed").isEqualTo(Duration.ofMillis(200).toNanos());
  }

  @Test
  void shouldAnswerTheWriteWhenItWasCommittedBeforeAnotherProducerTookOver() {
    Settlement s = settle(OPEN_AT_EPOCH_2,
        Arrays.asList(null, seen(TransactionState.PREPARE_COMMIT, 3), seen(TransactionState.EMPTY, 4)),
        Arrays.asList(null, null, true));
    assertThat(s.outcome()).isEqualTo(Settlement.Outcome.WRITTEN_THEN_FENCED);
    assertThat(s.records()).isEqualTo(RECORDS);
  }

  @Test
  void shouldSayNobodyTookOverAfterTheGraceWhenTheCoordinatorAbortedOnItsOwn() {
    Settlement s = settle(OPEN_AT_EPOCH_2, List.of(seen(TransactionState.COMPLETE_ABORT, 3)), List.of(false));
    assertThat(s.outcome()).isEqualTo(Settlement.Outcome.NOTHING_WRITTEN_WRITER_LOST);
    assertThat(s.reason()).contains("no other control plane took over");
    assertThat(nanos.get()).isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void shouldAnswerACommittedWriteWhoseWriterFailedWithoutAnotherTakingOver() {
    Settlement s = settle(OPEN_AT_EPOCH_2, List.of(seen(TransactionState.COMPLETE_COMMIT, 3)), List.of(true));
    assertThat(s.outcome()).isEqualTo(Settlement.Outcome.WRITTEN_WRITER_LOST);
    assertThat(s.reason()).contains("no other control plane took over");
  }

  @Test
  void shouldStayUnknownWhenNeitherTheLogNorTheCoordinatorAnswersInTime() {
    Settlement s = settle(OPEN_AT_EPOCH_2, Arrays.asList((TransactionDescription) null), Arrays.asList((Boolean) null));
    assertThat(s.outcome()).isEqualTo(Settlement.Outcome.UNKNOWN);
    assertThat(nanos.get()).isEqualTo(Duration.ofSeconds(15).toNanos());
  }

  @Test
  void shouldUseTheLogAloneWhenTheOwnerWasNotKnown() {
    Attempt unknownOwner = new Attempt(RECORDS, -1, -1, true);
    Settlement written = settle(unknownOwner, List.of(seen(TransactionState.EMPTY, 4)), List.of(true));
    assertThat(written.outcome()).isEqualTo(Settlement.Outcome.WRITTEN_WRITER_LOST);
    assertThat(written.reason()).contains("whether another control plane took over is not known");
    Settlement aborted = settle(unknownOwner, List.of(seen(TransactionState.EMPTY, 4)), List.of(false));
    assertThat(aborted.outcome()).isEqualTo(Settlement.Outcome.NOTHING_WRITTEN_WRITER_LOST);
  }
}
