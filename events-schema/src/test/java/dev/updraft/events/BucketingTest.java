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

  /*
   * Fixed vectors, computed outside this code base. Exact commands used (GNU coreutils sha256sum and
   * bc, then Python 3.11 hashlib as a second opinion; both gave the same numbers):
   *
   *   printf '%s' "$(printf '%s' "$CLIENT" | tr A-Z a-z):$ROLLOUT" | sha256sum | cut -c1-16 \
   *     | tr a-f A-F | sed 's/^/ibase=16; /; s/$/ % 2710/' | bc
   *
   *   python3 -c 'import hashlib,sys; c,r=sys.argv[1:]; print(int.from_bytes(
   *     hashlib.sha256((c.lower()+":"+r).encode()).digest()[:8],"big")%10000)' "$CLIENT" "$ROLLOUT"
   *
   * (2710 is 10000 in hex: bc reads the modulus in the input base.) The client id is lower-cased, the
   * rollout id is not. Boundary ids were found with the Python line over device-0, device-1, ...
   */
  private static final Object[][] VECTORS = {
    {"2f8e2c4e-8e1d-4bd5-9a5e-6a3f1e0c9b7d", "7c9e6679-7425-40de-944b-e07fc1f90ae7", 3191},
    {"2F8E2C4E-8E1D-4BD5-9A5E-6A3F1E0C9B7D", "7c9e6679-7425-40de-944b-e07fc1f90ae7", 3191},
    {"device-1", "r1", 6550},
    {"Device-1", "r1", 6550},
    {"DEVICE-1", "r1", 6550},
    {"device-1", "R1", 3251},
    {"a", "b", 1548},
    {"client-x", "Rollout-Upper", 4663},
    {"device-165", "boundary", 0},
    {"device-396", "boundary", 999},
    {"device-29537", "boundary", 1000},
    {"device-9019", "boundary", 9999},
  };

  @Test
  void fixedVectorsComputedOutsideTheCode() {
    for (Object[] v : VECTORS) {
      String client = (String) v[0];
      String rollout = (String) v[1];
      int expected = (Integer) v[2];
      assertThat(Bucketing.Algorithm.SHA256_V1.bucket(client, rollout)).as("%s / %s", client, rollout).isEqualTo(expected);
      assertThat(Bucketing.bucket(client, rollout)).as("current, %s / %s", client, rollout).isEqualTo(expected);
    }
  }

  @Test
  void bucket999IsInsideAtTenPercentAnd1000IsNot() {
    assertThat(Bucketing.bucket("device-396", "boundary")).isEqualTo(999);
    assertThat(Bucketing.bucket("device-29537", "boundary")).isEqualTo(1000);

    assertThat(Bucketing.inside(999, 10)).isTrue();
    assertThat(Bucketing.inside(1000, 10)).isFalse();
    assertThat(Bucketing.inRollout("device-396", "boundary", 10)).isTrue();
    assertThat(Bucketing.inRollout("DEVICE-396", "boundary", 10)).isTrue();
    assertThat(Bucketing.inRollout("device-29537", "boundary", 10)).isFalse();
    assertThat(Bucketing.inRollout("device-29537", "boundary", 11)).isTrue();
    assertThat(Bucketing.inRollout("device-165", "boundary", 1)).isTrue(); // bucket 0
    assertThat(Bucketing.inRollout("device-165", "boundary", 0)).isFalse();
    assertThat(Bucketing.inRollout("device-9019", "boundary", 99)).isFalse(); // bucket 9999
    assertThat(Bucketing.inRollout("device-9019", "boundary", 100)).isTrue();
  }

  @Test
  void theRangeShownInInsightsIsTheRangeTheRuleTakes() {
    assertThat(Bucketing.range(0)).isEqualTo("no bucket");
    assertThat(Bucketing.range(1)).isEqualTo("buckets 0–99");
    assertThat(Bucketing.range(10)).isEqualTo("buckets 0–999");
    assertThat(Bucketing.range(50)).isEqualTo("buckets 0–4999");
    assertThat(Bucketing.range(99)).isEqualTo("buckets 0–9899");
    assertThat(Bucketing.range(100)).isEqualTo("every bucket");
    for (int pct = 0; pct <= 100; pct++) {
      int last = Bucketing.lastBucketInside(pct);
      assertThat(Bucketing.inside(last, pct) || last < 0).as("last bucket at %d%%", pct).isTrue();
      assertThat(Bucketing.inside(last + 1, pct)).as("bucket after the last at %d%%", pct).isEqualTo(pct == 100);
    }
  }

  @Test
  void algorithmsAreNamedOnTheWireAndAbsentMeansTheFirst() {
    assertThat(Bucketing.Algorithm.SHA256_V1.wireName()).isEqualTo("sha256-v1");
    assertThat(Bucketing.Algorithm.named("sha256-v1")).isEqualTo(Bucketing.Algorithm.SHA256_V1);
    assertThat(Bucketing.Algorithm.named(null)).isEqualTo(Bucketing.Algorithm.SHA256_V1);
    assertThat(Bucketing.Algorithm.named("SHA256-V1")).isNull();
    assertThat(Bucketing.Algorithm.named("murmur3-v9")).isNull();
  }

  @Test
  void anUnknownAlgorithmPutsEveryDeviceOutsideBelowOneHundredPercent() {
    assertThat(Bucketing.inRollout(null, "device-165", "boundary", 99)).isFalse();
    assertThat(Bucketing.inRollout(null, "device-165", "boundary", 100)).isTrue();
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
    assertThat(Bucketing.bucket(null, "r")).isEqualTo(-1);
    assertThat(Bucketing.bucket("", "r")).isEqualTo(-1);
    assertThat(Bucketing.inside(-1, 99)).isFalse();
    assertThat(Bucketing.inside(-1, 100)).isTrue();
  }
}
