package dev.updraft.controlplane.log;

import java.util.List;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * An append whose outcome is not known: where its records are in the log (written, maybe committed) and
 * the producer id and epoch its transaction had while open, as the transaction coordinator reported them
 * before the commit.
 *
 * @param records where each record landed, in order
 * @param producerId -1 when the coordinator could not be asked
 * @param epoch -1 when the coordinator could not be asked
 * @param commitSent false when the failure came before the commit was sent: then nothing was committed
 */
record Attempt(List<RecordMetadata> records, long producerId, int epoch, boolean commitSent) {
  Attempt {
    records = List.copyOf(records);
  }

  boolean ownerKnown() {
    return producerId >= 0 && epoch >= 0;
  }
}
