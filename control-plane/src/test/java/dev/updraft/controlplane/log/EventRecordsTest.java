package dev.updraft.controlplane.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class EventRecordsTest {
  @Test
  void everyEventButTheLastOfItsAppSaysHowManyOfItsAppFollow() {
    List<EventEnvelope> events = List.of(
        event("shop", 7, "a"), event("shop", 8, "b"), event("news", 3, "c"), event("shop", 9, "d"));
    List<byte[]> encoded = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      encoded.add(new byte[] {(byte) i});
    }

    List<ProducerRecord<String, byte[]>> records = EventRecords.of("updraft.events", events, encoded);

    assertThat(records).extracting(ProducerRecord::key).containsExactly("shop", "shop", "news", "shop");
    assertThat(records).extracting(r -> (int) r.value()[0]).containsExactly(0, 1, 2, 3);
    assertThat(records).extracting(EventRecordsTest::more).containsExactly("2", "1", null, null);
  }

  @Test
  void aCommandOfOneEventCarriesNoHeader() {
    List<ProducerRecord<String, byte[]>> records =
        EventRecords.of("updraft.events", List.of(event("shop", 1, "a")), List.of(new byte[] {1}));

    assertThat(records.get(0).headers().toArray()).isEmpty();
  }

  private static String more(ProducerRecord<String, byte[]> r) {
    Header h = r.headers().lastHeader(Topics.MORE_HEADER);
    return h == null ? null : new String(h.value(), StandardCharsets.US_ASCII);
  }

  private static EventEnvelope event(String app, long sequence, String channel) {
    return EventEnvelope.of(app, sequence, Instant.now(), "test", new EventPayload.ChannelMapped(channel, "main", null));
  }
}
