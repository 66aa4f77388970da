package dev.updraft.ingester.funnel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * SipHash-2-4 as published (the reference implementation's test vectors: key 00..0f, messages 00, 00 01, ...), and the
 * funnel key read as words so that no two keys are the same input.
 */
class KeyHashTest {
  /** The first 16 of the reference's 64 vectors (vectors.h of SipHash, 2012), then the 64th. */
  private static final long[] VECTORS = {
      0x726fdb47dd0e0e31L, 0x74f839c593dc67fdL, 0x0d6c8009d9a94f5aL, 0x85676696d7fb7e2dL,
      0xcf2794e0277187b7L, 0x18765564cd99a68dL, 0xcbc9466e58fee3ceL, 0xab0200f58b01d137L,
      0x93f5f5799a932462L, 0x9e0082df0ba9e4b0L, 0x7a5dbbc594ddb9f3L, 0xf4b32f46226bada7L,
      0x751e8fbc860ee5fbL, 0x14ea5627c0843d90L, 0xf723ca908e7af2eeL, 0xa129ca6149be45e5L};
  private static final long VECTOR_63 = 0x958a324ceb064572L;
  private static final long K0 = 0x0706050403020100L;
  private static final long K1 = 0x0f0e0d0c0b0a0908L;

  private static byte[] message(int length) {
    byte[] m = new byte[length];
    for (int i = 0; i < length; i++) {
      m[i] = (byte) i;
    }
    return m;
  }

  @Test
  void matchesThePublishedVectors() {
    KeyHash.Sip sip = new KeyHash.Sip(K0, K1);
    for (int len = 0; len < VECTORS.length; len++) {
      assertThat(sip.hash(message(len))).as("SipHash-2-4 of %d bytes", len).isEqualTo(VECTORS[len]);
    }
    assertThat(sip.hash(message(63))).as("SipHash-2-4 of 63 bytes").isEqualTo(VECTOR_63);
  }

  @Test
  void aKeyIsItsColumnsWithTheirLengthsHashedUnderBothKeys() {
    KeyHash h = new KeyHash(K0, K1, K1, K0);
    h.of("a", "bc", "served", "d");
    // the words the key is read as, written out here: each column's length, then its UTF-16 units four to a word
    long[] words = {1, 'a', 2, 'b' | (long) 'c' << 16, 6, 's' | (long) 'e' << 16 | (long) 'r' << 32 | (long) 'v' << 48,
        'e' | (long) 'd' << 16, 1, 'd'};
    byte[] bytes = new byte[8 * words.length];
    for (int i = 0; i < words.length; i++) {
      for (int b = 0; b < 8; b++) {
        bytes[8 * i + b] = (byte) (words[i] >>> (8 * b));
      }
    }
    assertThat(h.hi).isEqualTo(new KeyHash.Sip(K0, K1).hash(bytes));
    assertThat(h.lo).isEqualTo(new KeyHash.Sip(K1, K0).hash(bytes));
  }

  @Test
  void keysThatConcatenateAlikeHashApart() {
    KeyHash h = new KeyHash(1, 2, 3, 4);
    Set<String> seen = new HashSet<>();
    String[][] keys = {{"ab", "c", "s", "d"}, {"a", "bc", "s", "d"}, {"a", "b", "cs", "d"}, {"abc", "", "s", "d"},
        {"a", "b", "c", "sd"}, {"app", "u", "launched", "abcd"}, {"app", "u", "launched", "abce"}};
    for (String[] k : keys) {
      h.of(k[0], k[1], k[2], k[3]);
      assertThat(seen.add(h.hi + ":" + h.lo)).as("hash of %s", String.join("|", k)).isTrue();
    }
    h.prefix("app", "u", "launched");
    h.client("abcd");
    long hi = h.hi;
    long lo = h.lo;
    h.of("app", "u", "launched", "abcd");
    assertThat(h.hi).as("a key hashed after its shared columns, or whole").isEqualTo(hi);
    assertThat(h.lo).isEqualTo(lo);
    KeyHash other = new KeyHash(5, 6, 7, 8);
    other.of("app", "u", "launched", "abcd");
    assertThat(other.hi).as("another process's secret keys give other hashes").isNotEqualTo(h.hi);
  }
}
