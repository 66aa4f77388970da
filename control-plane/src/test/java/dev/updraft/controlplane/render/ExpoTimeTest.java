package dev.updraft.controlplane.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ExpoTimeTest {
  @Test
  void formatsWithExactlyThreeFractionDigitsAndZ() {
    assertThat(ExpoTime.format(Instant.parse("2026-11-30T10:00:05Z"))).isEqualTo("2026-11-30T10:00:05.000Z");
    assertThat(ExpoTime.format(Instant.parse("2026-11-30T10:00:05.123456789Z"))).isEqualTo("2026-11-30T10:00:05.123Z");
    assertThat(ExpoTime.parse("2026-11-30T10:00:05.120Z")).isEqualTo(Instant.parse("2026-11-30T10:00:05.12Z"));
    assertThatThrownBy(() -> ExpoTime.parse("2026-11-30T10:00:05Z")).hasMessageContaining("yyyy-MM-ddTHH:mm:ss.SSSZ");
  }

  @Test
  void aNewEntryIsStrictlyLaterThanTheLatestEvenWhenTheClockIsBehind() {
    Instant latest = Instant.parse("2026-11-30T10:00:05.000Z");
    assertThat(ExpoTime.nextAfter(Instant.parse("2026-11-30T10:00:06.500Z"), latest)).isEqualTo(Instant.parse("2026-11-30T10:00:06.500Z"));
    assertThat(ExpoTime.nextAfter(Instant.parse("2026-11-30T10:00:05.000Z"), latest)).isEqualTo(Instant.parse("2026-11-30T10:00:05.001Z"));
    assertThat(ExpoTime.nextAfter(Instant.parse("2026-11-30T09:00:00.000Z"), latest)).isEqualTo(Instant.parse("2026-11-30T10:00:05.001Z"));
    assertThat(ExpoTime.nextAfter(Instant.parse("2026-11-30T09:00:00.000999Z"), null)).isEqualTo(Instant.parse("2026-11-30T09:00:00.000Z"));
  }
}
