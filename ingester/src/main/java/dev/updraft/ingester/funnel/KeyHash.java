package dev.updraft.ingester.funnel;

/**
 * The 128 bits a funnel key is remembered by: two SipHash-2-4 of its columns under two secret 128-bit keys, drawn at
 * random by each process ({@link FunnelKeys}). Keyed, so that nobody outside the process can choose client ids whose
 * hashes meet another device's (a device sends its own client id); 128 bits, so that two keys a fleet really has meet
 * with a probability of about (keys remembered) / 2^128 per lookup: never, in practice.
 *
 * <p>The columns are read as one string of 64-bit words: for each column its length, then its characters four to a
 * word (UTF-16 code units, the last word padded with zeros), so that no two different keys make the same words.
 *
 * <p>Not thread-safe: one per {@link FunnelKeys}, used under its lock.
 */
final class KeyHash {
  /** One SipHash-2-4 state (the reference's v0..v3). */
  static final class Sip {
    private final long k0;
    private final long k1;
    private long v0;
    private long v1;
    private long v2;
    private long v3;

    Sip(long k0, long k1) {
      this.k0 = k0;
      this.k1 = k1;
    }

    /** The state (and so the message so far) of {@code other}, which hashes under the same key. */
    void copy(Sip other) {
      v0 = other.v0;
      v1 = other.v1;
      v2 = other.v2;
      v3 = other.v3;
    }

    void start() {
      v0 = k0 ^ 0x736f6d6570736575L;
      v1 = k1 ^ 0x646f72616e646f6dL;
      v2 = k0 ^ 0x6c7967656e657261L;
      v3 = k1 ^ 0x7465646279746573L;
    }

    /** Compresses one full 8-byte block (little-endian). */
    void block(long m) {
      v3 ^= m;
      round();
      round();
      v0 ^= m;
    }

    /** Ends the message with its last block: the bytes left over (fewer than 8) and the message length in the top byte. */
    long finish(long last) {
      block(last);
      v2 ^= 0xff;
      round();
      round();
      round();
      round();
      return v0 ^ v1 ^ v2 ^ v3;
    }

    private void round() {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13);
      v1 ^= v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17);
      v1 ^= v2;
      v2 = Long.rotateLeft(v2, 32);
    }

    /** SipHash-2-4 of {@code bytes} (the reference's byte interface; tests check it against the published vectors). */
    long hash(byte[] bytes) {
      start();
      int full = bytes.length & ~7;
      for (int i = 0; i < full; i += 8) {
        long m = 0;
        for (int j = 7; j >= 0; j--) {
          m = (m << 8) | (bytes[i + j] & 0xffL);
        }
        block(m);
      }
      long last = (long) bytes.length << 56;
      for (int j = 0; j < bytes.length - full; j++) {
        last |= (bytes[full + j] & 0xffL) << (8 * j);
      }
      return finish(last);
    }
  }

  private final Sip high;
  private final Sip low;
  /** The states after the last {@link #prefix}, and its words. */
  private final Sip highPrefix;
  private final Sip lowPrefix;
  private int prefixWords;
  private int words;
  /** The result of the last {@link #of} or {@link #client}: its high and low 64 bits. */
  long hi;
  long lo;

  KeyHash(long k0, long k1, long k2, long k3) {
    high = new Sip(k0, k1);
    low = new Sip(k2, k3);
    highPrefix = new Sip(k0, k1);
    lowPrefix = new Sip(k2, k3);
  }

  /** Hashes a funnel key into {@link #hi} and {@link #lo}. */
  void of(String appId, String updateId, String stage, String clientId) {
    prefix(appId, updateId, stage);
    client(clientId);
  }

  /**
   * Reads the first three columns once for the keys that share them ({@link #client} then hashes each): a batch's rows
   * in key order share them in long runs.
   */
  void prefix(String appId, String updateId, String stage) {
    high.start();
    low.start();
    words = 0;
    column(appId);
    column(updateId);
    column(stage);
    highPrefix.copy(high);
    lowPrefix.copy(low);
    prefixWords = words;
  }

  /** Hashes the key of the last {@link #prefix} and this client id into {@link #hi} and {@link #lo}. */
  void client(String clientId) {
    high.copy(highPrefix);
    low.copy(lowPrefix);
    words = prefixWords;
    column(clientId);
    long last = (long) (words * 8) << 56; // every block full: only the length is left
    hi = high.finish(last);
    lo = low.finish(last);
  }

  private void column(String s) {
    int n = s.length();
    word(n);
    for (int i = 0; i < n; i += 4) {
      long w = 0;
      for (int j = 0; j < 4 && i + j < n; j++) {
        w |= (long) s.charAt(i + j) << (16 * j);
      }
      word(w);
    }
  }

  private void word(long w) {
    high.block(w);
    low.block(w);
    words++;
  }
}
