package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BucketingTest {

  private static List<String> randomClientIds(int n, long seed) {
    Random r = new Random(seed);
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(new UUID(r.nextLong(), r.nextLong()).toString());
    }
    return ids;
  }

  @Test
  void bucketIgnoresLetterCaseOfTheClientId() {
    String id = "2F8E2C4E-8E1D-4BD5-9A5E-6A3F1E0C9B7D";
    assertThat(Bucketing.bucket(id, "r1")).isEqualTo(Bucketing.bucket(id.toLowerCase(Locale.ROOT), "r1"));
  }

  @Test
  void includedShareIsWithinOnePointOfTheTargetOverTenThousandIds() {
    List<String> ids = randomClientIds(10_000, 42);
    for (int pct : new int[] {1, 5, 10, 25, 50, 75, 90, 99}) {
      long in = ids.stream().filter(id -> Bucketing.inRollout(id, "rollout-a", pct)).count();
      assertThat(in / 100.0).as("share at %d%%", pct).isBetween(pct - 1.0, pct + 1.0);
    }
  }

  @Test
  void raisingThePercentageOnlyAddsDevices() {
    List<String> ids = randomClientIds(5_000, 7);
    for (String id : ids) {
      boolean wasIn = false;
      for (int pct = 0; pct <= 100; pct += 5) {
        boolean in = Bucketing.inRollout(id, "rollout-b", pct);
        assertThat(!wasIn || in).as("device %s left the rollout at %d%%", id, pct).isTrue();
        wasIn = in;
      }
    }
  }

  @Test
  void differentRolloutsPickDifferentDevices() {
    List<String> ids = randomClientIds(10_000, 9);
    long both = ids.stream().filter(id -> Bucketing.inRollout(id, "x", 10) && Bucketing.inRollout(id, "y", 10)).count();
    // independent 10 % samples overlap on about 1 % of devices, not 10 %
    assertThat(both).isBetween(50L, 200L);
  }

  @Test
  void deviceWithoutClientIdIsNeverInAPartialRollout() {
    assertThat(Bucketing.inRollout(null, "r", 99)).isFalse();
    assertThat(Bucketing.inRollout("", "r", 99)).isFalse();
    assertThat(Bucketing.inRollout(null, "r", 100)).isTrue();
  }
}
