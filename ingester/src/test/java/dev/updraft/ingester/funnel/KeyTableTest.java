package dev.updraft.ingester.funnel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The bounded set of hashes: never more than the bound, the recently used kept, memory as it fills. */
class KeyTableTest {

  @Test
  void neverHoldsMoreThanTheBoundAndKeepsOnlyTheNewest() {
    KeyTable t = new KeyTable(1_000);
    for (long k = 1; k <= 100_000; k++) {
      t.add(k * 0x9E3779B97F4A7C15L, k);
      assertThat(t.size()).isLessThanOrEqualTo(1_000);
    }
    assertThat(t.contains(100_000 * 0x9E3779B97F4A7C15L, 100_000)).as("the last one added").isTrue();
    assertThat(t.contains(0x9E3779B97F4A7C15L, 1)).as("the first one added").isFalse();
    int held = 0;
    for (long k = 1; k <= 100_000; k++) {
      if (t.contains(k * 0x9E3779B97F4A7C15L, k)) {
        held++;
      }
    }
    assertThat(held).as("hashes still held of the 100,000 added").isBetween(500, 1_000);
  }

  @Test
  void aHashUsedWhileOthersComeInStays() {
    KeyTable t = new KeyTable(100);
    t.add(7, 7);
    for (long k = 1_000; k < 11_000; k++) {
      t.add(k, k);
      if (k % 40 == 0) {
        assertThat(t.contains(7, 7)).as("the hash used every 40 new ones, after %d new ones", k - 999).isTrue();
      }
    }
    assertThat(t.contains(1_000, 1_000)).as("one never used again").isFalse();
  }

  @Test
  void takesMemoryAsItFillsUpToAboutTwentyOneBytesPerHashOfTheBound() {
    KeyTable t = new KeyTable(2_000_000);
    for (long k = 1; k <= 10; k++) {
      t.add(k, k);
    }
    assertThat(16L * t.slots()).as("bytes for 10 hashes").isEqualTo(16L * 1024);
    for (long k = 11; k < 3_000_000; k++) { // the newer generation one short of full
      t.add(k, -k);
    }
    // two generations of ceil(1,000,000 / 0.75) + 1 slots of 16 bytes
    assertThat(16L * t.slots()).as("bytes when full").isEqualTo(2 * 16L * 1_333_335);
    assertThat(16.0 * t.slots() / 2_000_000).as("bytes per hash of the bound").isBetween(21.0, 21.5);
  }

  @Test
  void theHashOfZeroIsHeldToo() {
    KeyTable t = new KeyTable(10);
    assertThat(t.contains(0, 0)).isFalse();
    t.add(0, 0);
    assertThat(t.contains(0, 0)).isTrue();
  }
}
