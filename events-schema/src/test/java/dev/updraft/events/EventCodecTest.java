package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventCodecTest {

  private static Decoded decode(String json) {
    return EventCodec.decode(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void unknownTypeIsReportedWithItsNameAndPosition() {
    Decoded d =
        decode(
            "{\"eventId\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"app.renamed\",\"schemaVersion\":1,"
                + "\"appId\":\"demo\",\"sequence\":7,\"occurredAt\":\"2026-11-30T10:00:00Z\",\"actor\":\"admin\",\"payload\":{}}");

    assertThat(d).isEqualTo(new Decoded.Unknown("app.renamed", 1, "demo", 7));
  }

  @Test
  void newerSchemaVersionOfAKnownTypeIsUnknownNotMisread() {
    Decoded d =
        decode(
            "{\"eventId\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"app.created\",\"schemaVersion\":2,"
                + "\"appId\":\"demo\",\"sequence\":1,\"occurredAt\":\"2026-11-30T10:00:00Z\",\"actor\":\"admin\",\"payload\":{}}");

    assertThat(d).isEqualTo(new Decoded.Unknown("app.created", 2, "demo", 1));
  }

  @Test
  void unknownFieldsAreIgnoredSoOlderReadersAcceptAdditiveChanges() {
    Decoded d =
        decode(
            "{\"eventId\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"app.created\",\"schemaVersion\":1,"
                + "\"appId\":\"demo\",\"sequence\":1,\"occurredAt\":\"2026-11-30T10:00:00Z\",\"actor\":\"admin\","
                + "\"traceId\":\"x\",\"payload\":{\"displayName\":\"Demo\",\"color\":\"blue\"}}");

    assertThat(d).isInstanceOf(Decoded.Known.class);
    assertThat(((Decoded.Known) d).envelope().payload()).isEqualTo(new EventPayload.AppCreated("Demo"));
  }

  @Test
  void garbageIsMalformedWithAReason() {
    assertThat(decode("not json")).isInstanceOf(Decoded.Malformed.class);
    assertThat(decode("[1,2]")).isEqualTo(new Decoded.Malformed("not a JSON object"));
    assertThat(EventCodec.decode(new byte[0])).isEqualTo(new Decoded.Malformed("empty record value"));
    Decoded badPayload =
        decode(
            "{\"eventId\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"rollout.changed\",\"schemaVersion\":1,"
                + "\"appId\":\"demo\",\"sequence\":4,\"occurredAt\":\"2026-11-30T10:00:00Z\",\"actor\":\"admin\","
                + "\"payload\":{\"groupId\":\"g\",\"rolloutId\":\"r\",\"percentage\":\"lots\"}}");
    assertThat(badPayload).isInstanceOf(Decoded.Malformed.class);
    assertThat(((Decoded.Malformed) badPayload).reason()).contains("rollout.changed").contains("sequence=4");
  }
}
