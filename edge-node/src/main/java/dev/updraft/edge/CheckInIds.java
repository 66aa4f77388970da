package dev.updraft.edge;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random (version 4) UUIDs for check-in ids without {@link UUID#randomUUID()}'s shared
 * {@code SecureRandom} on the hot path: {@link ThreadLocalRandom} bits mixed with a per-process salt
 * drawn once from {@code SecureRandom}, so two edges started at the same instant still differ.
 */
final class CheckInIds {
  private static final long SALT_HI;
  private static final long SALT_LO;

  static {
    SecureRandom r = new SecureRandom();
    SALT_HI = r.nextLong();
    SALT_LO = r.nextLong();
  }

  private CheckInIds() {}

  static String next() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long hi = (r.nextLong() ^ SALT_HI) & 0xffffffffffff0fffL | 0x0000000000004000L;
    long lo = (r.nextLong() ^ SALT_LO) & 0x3fffffffffffffffL | 0x8000000000000000L;
    return new UUID(hi, lo).toString();
  }
}
