package dev.updraft.edge.checkin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The warm-up's path through the sink: encoded in the form the sink writes, with no broker and nothing sent. */
class KafkaSinkTest {
  private static CheckIn checkIn() {
    return CheckIn.builder().checkInId("warm-1").appId("app").platform("ios").runtimeVersion("1.0.0")
        .channel("production").clientId("client-1").outcome(CheckIn.OUTCOME_UPDATE).reason("newer")
        .servedUpdateId("u").servedGroupId("g").edgeId("edge").build();
  }

  @Test
  void theWarmUpEncodesACheckInInTheCompactFormWithoutABroker() {
    // nothing listens on port 1: the producer connects only on a send, which exercise never makes
    KafkaSink sink = new KafkaSink("127.0.0.1:1", "t", "warm", 1 << 20, true);
    try {
      assertThat(sink.exercisedBytes()).isZero();
      sink.exercise(checkIn());
      int compact = sink.exercisedBytes();
      assertThat(compact).isPositive();
      KafkaSink json = new KafkaSink("127.0.0.1:1", "t", "warm-json", 1 << 20, false);
      try {
        json.exercise(checkIn());
        // the JSON form names every field: the compact one is the smaller, so the sink used the form it writes
        assertThat(json.exercisedBytes()).isGreaterThan(compact);
        assertThat(json.exercisedBytes()).isEqualTo(new CheckInJson().encode(checkIn()).length);
      } finally {
        json.close(Duration.ZERO);
      }
    } finally {
      sink.close(Duration.ZERO);
    }
  }
}
