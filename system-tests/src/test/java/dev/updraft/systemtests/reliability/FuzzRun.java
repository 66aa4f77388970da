package dev.updraft.systemtests.reliability;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * What one run of the manifest fuzz explores: a seed drawn fresh for every run (so that each CI run sends
 * inputs no run sent before) unless {@value #SEED_PROPERTY} names one to replay, and how many inputs
 * ({@value #COUNT_PROPERTY}: the build sets it, {@value #DEFAULT_COUNT} in CI, a million with the Maven
 * profile {@code fuzz-long}). Since input {@code i} of seed {@code s} is always the same bytes
 * ({@link FuzzInputs}), the seed and an input's index are all it takes to send a failing input again: every
 * failure says both, with the input's bytes, and the command that replays the run. Immutable.
 */
record FuzzRun(long seed, boolean replayed, int count) {
  static final String SEED_PROPERTY = "updraft.fuzz.seed";
  static final String COUNT_PROPERTY = "updraft.fuzz.count";
  /** Inputs per CI run: about 20 s of the suite's time on two cores (docs/reliability.md). */
  static final int DEFAULT_COUNT = 100_000;
  /** The bytes of an input a failure shows, at most (an input can be megabytes of headers). */
  static final int SHOWN_BYTES = 2_000;

  /** The run the system properties ask for: the given seed replayed, or a fresh one. */
  static FuzzRun fromSystemProperties() {
    String seed = System.getProperty(SEED_PROPERTY, "").trim();
    String count = System.getProperty(COUNT_PROPERTY, "").trim();
    int n = count.isEmpty() ? DEFAULT_COUNT : Integer.parseInt(count);
    if (n <= 0) {
      throw new IllegalArgumentException(COUNT_PROPERTY + " must be positive: got " + n);
    }
    return seed.isEmpty() ? new FuzzRun(new SecureRandom().nextLong(), false, n) : new FuzzRun(Long.parseLong(seed), true, n);
  }

  /** The Maven arguments that send this run's inputs again. */
  String replay() {
    return "-Dit.test=ManifestFuzzIT -D" + SEED_PROPERTY + "=" + seed + " -D" + COUNT_PROPERTY + "=" + count;
  }

  /** The line the run starts with, before any input is sent (so that even a hung run names its seed). */
  String banner() {
    return "manifest fuzz: seed=" + seed + (replayed ? " (given)" : " (drawn for this run)") + " inputs=" + count + "; replay: " + replay();
  }

  /** A failure of input {@code index}: the seed, the index, why, and the input's bytes (CR and LF shown escaped). */
  String failure(long index, String kinds, String why, byte[] input) {
    return "seed " + seed + " input " + index + " [" + kinds.trim() + "]: " + why + "; input " + shown(input) + "; replay: " + replay();
  }

  /** Bytes as ISO-8859-1 text in quotes, CR, LF and other controls escaped, cut at {@link #SHOWN_BYTES}. */
  static String shown(byte[] b) {
    StringBuilder s = new StringBuilder("'");
    int n = Math.min(b.length, SHOWN_BYTES);
    for (int i = 0; i < n; i++) {
      int c = b[i] & 0xff;
      if (c == '\r') {
        s.append("\\r");
      } else if (c == '\n') {
        s.append("\\n");
      } else if (c == '\\') {
        s.append("\\\\");
      } else if (c < 0x20 || c == 0x7f) {
        s.append(String.format("\\x%02x", c));
      } else {
        s.append(new String(new byte[] {(byte) c}, StandardCharsets.ISO_8859_1));
      }
    }
    s.append('\'');
    if (b.length > n) {
      s.append(" (").append(b.length).append(" bytes, the first ").append(n).append(" shown)");
    }
    return s.toString();
  }
}
