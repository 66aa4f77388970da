package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RefusalTest {
  @Test
  void aFixedRefusalAnswersTheWholeBodyEveryTimeItIsSent() {
    String expected = "{\"error\":{\"code\":\"not-ready\",\"message\":\"this edge is still reading the event log; retry in a few seconds\"}}";
    // each answer gets its own view of the shared bytes: one answer's write leaves the next one whole
    assertThat(Refusal.NOT_READY.body().toString()).isEqualTo(expected);
    assertThat(Refusal.NOT_READY.body().toString()).isEqualTo(expected);
    assertThat(Refusal.NOT_READY.status).isEqualTo(503);
    assertThat(Refusal.NOT_READY.header.toString()).isEqualTo("retry-after");
    assertThat(Refusal.NOT_READY.headerValue.toString()).isEqualTo("5");
  }

  @Test
  void aMissingPlatformAndAWrongOneShareTheCheckInReasonButNameDifferentProblems() {
    assertThat(Refusal.invalidPlatform(null).code).isEqualTo("invalid-platform");
    assertThat(Refusal.invalidPlatform(null).message).contains("is missing");
    assertThat(Refusal.invalidPlatform("web").code).isEqualTo("invalid-platform");
    assertThat(Refusal.invalidPlatform("web").body().toString())
        .isEqualTo("{\"error\":{\"code\":\"invalid-platform\",\"message\":\"expo-platform must be ios or android: got 'web'\"}}");
  }
}
