package dev.updraft.controlplane.log;

import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;

/**
 * Whether another producer has taken this writer's {@code transactional.id}, judged from what the
 * transaction coordinator says about it ({@code Admin.describeTransactions}) against the producer id and
 * epoch this writer's own transaction had while it was open. Asking the coordinator is the only way that
 * does not disturb the other writer: a new producer's {@code initTransactions} would fence it in turn.
 *
 * <p>What the coordinator's epoch can have done since the writer's transaction was open at epoch
 * {@code e} (checked against Kafka 4.1 with transaction version 2, where every end of a transaction bumps
 * the epoch, and valid for version 1, where only fencing does):
 *
 * <ul>
 *   <li>{@code e}, ongoing or preparing: the transaction is still open or ending; wait.
 *   <li>{@code e}, complete: it ended and nobody came (version 1).
 *   <li>{@code e + 1}, complete commit: the writer's own commit ended it (version 2).
 *   <li>{@code e + 1}, complete abort: either a new producer's {@code InitProducerId} aborted it and is
 *       about to retry (its retry bumps the epoch again), or the coordinator aborted it on its timeout;
 *       wait a grace period for the retry, after which nobody came.
 *   <li>{@code e + 1}, empty or ongoing: a new producer initialised (version 1) and maybe writes.
 *   <li>{@code e + 2} or more, or another producer id: a new producer took over.
 * </ul>
 *
 * Stateless; thread-safe.
 */
final class Fence {
  /** Epochs from here on may make the coordinator give the next transaction a new producer id. */
  static final int EXHAUSTED_EPOCH = Short.MAX_VALUE - 1;

  /** Whether {@code t} (or a cause) says another writer with the same transactional id has fenced this one. */
  static boolean isFencing(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof org.apache.kafka.common.errors.ProducerFencedException
          || c instanceof org.apache.kafka.common.errors.InvalidProducerEpochException
          || c instanceof org.apache.kafka.common.errors.FencedInstanceIdException) {
        return true;
      }
    }
    return false;
  }

  /** What the coordinator's description says about the writer. */
  enum Verdict {
    /** Another producer with the same transactional id took over. */
    FENCED,
    /** The writer's transaction has ended and no other producer has initialised since. */
    NOT_FENCED,
    /** Not yet known: a transition is in progress, or the description says nothing certain. */
    UNDECIDED
  }

  private Fence() {}

  /**
   * @param producerId the writer's producer id while its transaction was open
   * @param epoch the writer's epoch while its transaction was open
   * @param seen what the coordinator says now; null when it could not be asked
   * @param graceOver whether a new producer has had the time to retry its {@code InitProducerId} after
   *     aborting the writer's transaction (see the class comment)
   */
  static Verdict judge(long producerId, int epoch, TransactionDescription seen, boolean graceOver) {
    if (seen == null || producerId < 0 || epoch < 0) {
      return Verdict.UNDECIDED;
    }
    if (seen.producerId() != producerId) {
      // a new id: a new producer, unless the writer's own commit exhausted the epoch and the coordinator rotated it
      return epoch >= EXHAUSTED_EPOCH - 1 ? Verdict.UNDECIDED : Verdict.FENCED;
    }
    int ahead = seen.producerEpoch() - epoch;
    if (ahead >= 2) {
      return Verdict.FENCED;
    }
    if (ahead < 0) {
      return Verdict.UNDECIDED;
    }
    return ahead == 0 ? atSameEpoch(seen.state()) : oneAhead(seen.state(), graceOver);
  }

  private static Verdict atSameEpoch(TransactionState state) {
    return switch (state) {
      case COMPLETE_COMMIT, COMPLETE_ABORT -> Verdict.NOT_FENCED;
      // still open or ending; EMPTY cannot be at the epoch of a transaction that was open; UNKNOWN says nothing
      case ONGOING, PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE, EMPTY, UNKNOWN -> Verdict.UNDECIDED;
    };
  }

  private static Verdict oneAhead(TransactionState state, boolean graceOver) {
    return switch (state) {
      case COMPLETE_COMMIT -> Verdict.NOT_FENCED;
      case COMPLETE_ABORT -> graceOver ? Verdict.NOT_FENCED : Verdict.UNDECIDED;
      case EMPTY, ONGOING -> Verdict.FENCED;
      // an end in progress; UNKNOWN says nothing
      case PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE, UNKNOWN -> Verdict.UNDECIDED;
    };
  }
}
