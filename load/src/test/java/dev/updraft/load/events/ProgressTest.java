package dev.updraft.load.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {

  /** One app, one channel, one runtime version, one platform: an app event, a channel event, then the publishes. */
  private static final EventLogGenerator.Spec SPEC = new EventLogGenerator.Spec(
      1, 1, 1, 1, 0, List.of("ios"), 42, "http://127.0.0.1:8080", Instant.parse("2026-01-01T00:00:00Z"), 3000, 0, false);

  @Test
  void saysHowManyEventsAndPublishesAreWrittenOncePerIntervalAndPassesEveryEventOn() {
    List<EventEnvelope> passed = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    long[] clock = {0};
    // the clock moves 5 s per reading: it is read at the start and once per 1,024 events
    Progress p = new Progress(passed::add, lines::add, SPEC.totalPublishes(), () -> (clock[0]++) * 5_000_000_000L,
        5_000_000_000L);

    EventLogGenerator.generate(SPEC, p);

    assertThat(passed).hasSize(3002);
    assertThat(p.events()).isEqualTo(3002);
    assertThat(lines).containsExactly(
        "  1,024 events, 1,022 of 3,000 publishes (34 %) in 5 s, 205 events/s",
        "  2,048 events, 2,046 of 3,000 publishes (68 %) in 10 s, 205 events/s");
  }

  @Test
  void saysNothingBeforeTheIntervalHasPassed() {
    List<String> lines = new ArrayList<>();
    Progress p = new Progress(e -> { }, lines::add, SPEC.totalPublishes(), () -> 0L, 10_000_000_000L);

    EventLogGenerator.generate(SPEC, p);

    assertThat(lines).isEmpty();
    assertThat(p.events()).isEqualTo(3002);
  }
}
