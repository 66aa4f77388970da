package dev.updraft.controlplane.log;

import java.util.List;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * What became known of an append whose commit outcome was unknown ({@link EventLog#settle}): whether its
 * records were committed (read from the log) and whether another writer took over (asked of the
 * transaction coordinator). In every case this writer's producer is closed: it cannot write again.
 *
 * @param records where the append's records are when they were committed; empty otherwise
 * @param reason what was found, for logs and {@code /healthz}
 */
public record Settlement(Outcome outcome, List<RecordMetadata> records, String reason) {
  /** The outcome of the append and of the writer. */
  public enum Outcome {
    /** The append was committed; then another writer with the same transactional id took over. */
    WRITTEN_THEN_FENCED,
    /** Another writer with the same transactional id took over before the append committed: nothing was written. */
    FENCED_NOTHING_WRITTEN,
    /** The append was committed; no other writer took over, or that is not known; this one cannot go on. */
    WRITTEN_WRITER_LOST,
    /** Nothing was written; no other writer took over, or that is not known; this one cannot go on. */
    NOTHING_WRITTEN_WRITER_LOST,
    /** Still unknown when the wait ended: only a replay can tell. */
    UNKNOWN
  }

  public Settlement {
    records = List.copyOf(records);
  }
}
