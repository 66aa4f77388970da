package dev.updraft.controlplane.snapshots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which apps are due a snapshot, and the partition markers: the smallest offset no snapshot covers. */
class CoverageTest {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  static final SnapshotPolicy POLICY = new SnapshotPolicy(3, Duration.ofMinutes(10));

  @Test
  void markersAreTheFirstUncoveredEventOfEachPartition() {
    Coverage c = new Coverage();
    c.folded("a", 0, 10, T0);
    c.folded("b", 0, 11, T0);
    c.folded("a", 0, 12, T0);
    c.folded("z", 1, 4, T0);
    assertThat(c.markers()).isEqualTo(Map.of(0, 10L, 1, 4L));
    Coverage.App a = c.due(T0.plus(Duration.ofMinutes(10)), POLICY).get(0);
    assertThat(a.appId).isEqualTo("a");
    assertThat(c.markersIfWritten(List.of(a))).as("b's first event is still needed").isEqualTo(Map.of(0, 11L, 1, 4L));
    c.written(a, "s1", 1, T0);
    assertThat(c.markers()).isEqualTo(Map.of(0, 11L, 1, 4L));
  }

  @Test
  void whenSnapshotsCoverEverythingAMarkerIsThePartitionsEnd() {
    Coverage c = new Coverage();
    c.restored(new SnapshotManifest(1, "a", "s0", 2, 40, 7, 1, 10, "00"), T0);
    assertThat(c.markers()).isEqualTo(Map.of(2, 41L));
    assertThat(c.due(T0.plus(Duration.ofHours(1)), POLICY)).as("nothing new").isEmpty();
    c.folded("a", 2, 45, T0);
    assertThat(c.markers()).isEqualTo(Map.of(2, 45L));
  }

  @Test
  void anAppIsDueAfterEnoughEventsOrAfterTheIntervalWithEventsSince() {
    Coverage c = new Coverage();
    c.folded("a", 0, 1, T0);
    c.folded("a", 0, 2, T0);
    c.folded("b", 0, 3, T0);
    c.folded("b", 0, 4, T0);
    c.folded("b", 0, 5, T0);
    assertThat(c.due(T0.plusSeconds(1), POLICY)).extracting(x -> x.appId).containsExactly("b");
    assertThat(c.due(T0.plus(Duration.ofMinutes(10)), POLICY)).extracting(x -> x.appId).containsExactly("a", "b");
  }
}
