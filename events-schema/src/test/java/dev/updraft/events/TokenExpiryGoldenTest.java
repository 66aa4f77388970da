package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppEvents.TokenIssued;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code TokenIssued.expiresAt}: absent in every token issued before it (never expires), present after. */
class TokenExpiryGoldenTest {

  private static EventEnvelope known(String path) throws IOException {
    Decoded d = EventCodec.decode(GoldenFilesTest.golden(path));
    assertThat(d).as(path).isInstanceOf(Decoded.Known.class);
    return ((Decoded.Known) d).envelope();
  }

  @Test
  void aTokenIssuedBeforeExpiryExistedDecodesWithoutOne() throws IOException {
    TokenIssued t = (TokenIssued) known("/golden/v1/token.issued.json").payload();

    assertThat(t.expiresAt()).isNull();
    assertThat(t).isEqualTo(new TokenIssued("tok_3h5k", "publish",
        "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "ci", null));
  }

  @Test
  void aTokenIssuedWithAnExpiryDecodesIt() throws IOException {
    EventEnvelope e = known("/golden/v1/token.issued.with-expiry.json");

    assertThat(e.sequence()).isEqualTo(22);
    assertThat(e.schemaVersion()).isEqualTo(1);
    assertThat(e.payload()).isEqualTo(new TokenIssued("tok_9a8b", "read",
        "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", "dashboard", "2026-12-30T10:00:22.123Z"));
  }

  @Test
  void aTokenThatNeverExpiresIsWrittenWithoutTheField() {
    String json = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "admin",
        new TokenIssued("tok_1", "read", "ab", null, null))), StandardCharsets.UTF_8);
    String expiring = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "admin",
        new TokenIssued("tok_1", "read", "ab", null, "2027-01-01T00:00:00Z"))), StandardCharsets.UTF_8);

    assertThat(json).doesNotContain("expiresAt");
    assertThat(expiring).contains("\"expiresAt\":\"2027-01-01T00:00:00Z\"");
  }
}
