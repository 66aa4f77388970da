package dev.updraft.controlplane.log;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.Topics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The records of one transaction of the event log: keyed by app id, each app's events but its last marked "more follow". */
final class EventRecords {
  private EventRecords() {}

  /**
   * @param encoded {@code events} encoded, in the same order
   * @return one record per event, in order; every event but the last of its app carries {@link Topics#MORE_HEADER}
   *     with the number of that app's events after it
   */
  static List<ProducerRecord<String, byte[]>> of(String topic, List<EventEnvelope> events, List<byte[]> encoded) {
    Map<String, Integer> left = new HashMap<>();
    for (EventEnvelope e : events) {
      left.merge(e.appId(), 1, Integer::sum);
    }
    List<ProducerRecord<String, byte[]>> out = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      String app = events.get(i).appId();
      ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, app, encoded.get(i));
      int more = left.merge(app, -1, Integer::sum);
      if (more > 0) {
        record.headers().add(Topics.MORE_HEADER, Integer.toString(more).getBytes(StandardCharsets.US_ASCII));
      }
      out.add(record);
    }
    return out;
  }
}
