package dev.updraft.controlplane.log;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.TransactionDescription;

/**
 * Finds out what happened to an append whose commit was not confirmed, by asking two sources until both
 * have answered or the time is up: the log (were its records committed? once the transaction has ended,
 * a {@code read_committed} reader returns them or skips them) and the transaction coordinator (did
 * another producer take the transactional id? see {@link Fence}). Neither source writes anything.
 *
 * <p>The sources are functions so that a recorded sequence of answers can be replayed in a unit test.
 * Stateless; thread-safe.
 */
final class Settle {
  private Settle() {}

  /**
   * @param coordinator the coordinator's description now; null when it cannot be asked
   * @param committed whether the append's records are committed: true, false (its transaction has ended
   *     without them), or null (not known yet)
   * @param grace how long a new producer may take to retry its {@code InitProducerId} after aborting the
   *     writer's transaction (see {@link Fence})
   * @param pause waits between two rounds of questions
   */
  static Settlement settle(
      Attempt attempt,
      Supplier<TransactionDescription> coordinator,
      Supplier<Boolean> committed,
      Duration timeout,
      Duration grace,
      LongSupplier nanoTime,
      Runnable pause) {
    long start = nanoTime.getAsLong();
    Fence.Verdict verdict = attempt.ownerKnown() ? Fence.Verdict.UNDECIDED : null;
    Boolean written = null;
    TransactionDescription last = null;
    int rounds = 0;
    while (true) {
      rounds++;
      long elapsed = nanoTime.getAsLong() - start;
      if (verdict == Fence.Verdict.UNDECIDED) {
        last = coordinator.get();
        verdict = Fence.judge(attempt.producerId(), attempt.epoch(), last, elapsed >= grace.toNanos());
      }
      if (written == null) {
        written = committed.get();
      }
      boolean fenceKnown = verdict != Fence.Verdict.UNDECIDED; // null (owner unknown) counts as known: nothing to ask
      if ((written != null && fenceKnown) || elapsed >= timeout.toNanos()) {
        return outcome(attempt, verdict, written, last, rounds, Duration.ofNanos(elapsed));
      }
      pause.run();
    }
  }

  private static Settlement outcome(
      Attempt attempt, Fence.Verdict verdict, Boolean written, TransactionDescription last, int rounds, Duration took) {
    String seen = "producerId=" + attempt.producerId() + " epoch=" + attempt.epoch() + " coordinator="
        + (last == null ? "not asked or no answer" : last.state() + " producerId=" + last.producerId() + " epoch=" + last.producerEpoch())
        + " after " + rounds + " rounds in " + took.toMillis() + " ms";
    if (written == null) {
      return new Settlement(Settlement.Outcome.UNKNOWN, List.of(), "the commit's outcome is still unknown (" + seen + ")");
    }
    if (verdict == Fence.Verdict.FENCED) {
      return written
          ? new Settlement(Settlement.Outcome.WRITTEN_THEN_FENCED, attempt.records(),
              "the write was committed, then another control plane with the same transactional id took over the event log (" + seen + ")")
          : new Settlement(Settlement.Outcome.FENCED_NOTHING_WRITTEN, List.of(),
              "another control plane with the same transactional id took over the event log before the commit (" + seen + ")");
    }
    String others = verdict == Fence.Verdict.NOT_FENCED
        ? "no other control plane took over"
        : "whether another control plane took over is not known";
    return written
        ? new Settlement(Settlement.Outcome.WRITTEN_WRITER_LOST, attempt.records(),
            "the write was committed but the event writer failed; " + others + " (" + seen + ")")
        : new Settlement(Settlement.Outcome.NOTHING_WRITTEN_WRITER_LOST, List.of(),
            "the write was not committed and the event writer failed; " + others + " (" + seen + ")");
  }
}
