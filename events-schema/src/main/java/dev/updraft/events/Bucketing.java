package dev.updraft.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The rollout rule, shared by every component that must agree on it. A device has a bucket 0..9999
 * per rollout, computed by the rollout's {@link Algorithm}; it is inside a rollout at P % when its
 * bucket is below P x 100, so raising P only adds devices. At 100 % every device is inside (with or
 * without a client id, whatever the algorithm); below that a device without a client id never is.
 *
 * <p>Every rollout records the algorithm it started with ({@code bucketing} in
 * {@link EventPayload.Rollout} and {@link EventPayload.BranchRollout}) and keeps it until it ends, so a
 * later default cannot move devices in or out of a running rollout. A rollout written before events
 * named their algorithm ({@code bucketing} absent) uses {@link Algorithm#SHA256_V1}.
 */
public final class Bucketing {
  /** Number of buckets. */
  public static final int BUCKETS = 10_000;

  /** Buckets per percentage point. */
  private static final int PER_PERCENT = BUCKETS / 100;

  /** The algorithm new rollouts start with. */
  public static final Algorithm CURRENT = Algorithm.SHA256_V1;

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 missing from this JVM", e);
            }
          });

  /**
   * A bucketing algorithm with its stable wire name. A released algorithm is never changed and its
   * name never reused; a different function is a new constant (and a new name), which only rollouts
   * started after it was made {@link #CURRENT} use.
   */
  public enum Algorithm {
    /**
     * {@code sha256-v1}: SHA-256 of the client id lower-cased ({@link Locale#ROOT}) in UTF-8, one
     * {@code :} byte and the rollout id in UTF-8; the first 8 bytes of the digest read as an unsigned
     * big-endian number, modulo 10,000.
     */
    SHA256_V1("sha256-v1");

    private static final Algorithm[] ALL = values();

    private final String wireName;

    Algorithm(String wireName) {
      this.wireName = wireName;
    }

    /** The name recorded in rollout events. */
    public String wireName() {
      return wireName;
    }

    /**
     * The algorithm recorded as {@code name}: {@link #SHA256_V1} for null (a rollout written before
     * events named their algorithm), null for a name this build does not know (a newer writer). What a
     * reader does then is its policy; the edge treats every device as outside such a rollout below 100 %.
     */
    public static Algorithm named(String name) {
      if (name == null) {
        return SHA256_V1;
      }
      for (Algorithm a : ALL) {
        if (a.wireName.equals(name)) {
          return a;
        }
      }
      return null;
    }

    /** The bucket 0..9999 of a client for a rollout, or -1 without a client id. */
    public int bucket(String clientId, String rolloutId) {
      if (clientId == null || clientId.isEmpty()) {
        return -1;
      }
      return switch (this) {
        case SHA256_V1 -> sha256V1(clientId, rolloutId);
      };
    }
  }

  private Bucketing() {}

  /**
   * The bucket 0..9999 of a client for a rollout under {@link #CURRENT}, or -1 without a client id.
   * {@code clientId} is lower-cased here.
   */
  public static int bucket(String clientId, String rolloutId) {
    return CURRENT.bucket(clientId, rolloutId);
  }

  /**
   * The rollout rule: whether a device with {@code bucket} (-1: none, no client id or an unknown
   * algorithm) is inside a rollout at {@code percentage} (0..100).
   */
  public static boolean inside(int bucket, int percentage) {
    if (percentage >= 100) {
      return true;
    }
    return bucket >= 0 && bucket < percentage * PER_PERCENT;
  }

  /** Whether a client is inside a rollout at {@code percentage} under {@link #CURRENT}. */
  public static boolean inRollout(String clientId, String rolloutId, int percentage) {
    return inRollout(CURRENT, clientId, rolloutId, percentage);
  }

  /**
   * Whether a client is inside a rollout at {@code percentage} under {@code algorithm}; null (an
   * unknown algorithm) puts every device outside below 100 %. No bucket is computed at 0 % or 100 %.
   */
  public static boolean inRollout(Algorithm algorithm, String clientId, String rolloutId, int percentage) {
    if (percentage >= 100) {
      return true;
    }
    if (percentage <= 0 || algorithm == null) {
      return false;
    }
    return inside(algorithm.bucket(clientId, rolloutId), percentage);
  }

  /** The highest bucket inside a rollout at {@code percentage}: -1 at 0 % (none), 9999 at 100 %. */
  static int lastBucketInside(int percentage) {
    int p = Math.max(0, Math.min(100, percentage));
    return p * PER_PERCENT - 1;
  }

  /**
   * The buckets a rollout at {@code percentage} takes, as insights word it: {@code no bucket},
   * {@code every bucket} or {@code buckets 0–N}.
   */
  public static String range(int percentage) {
    if (percentage <= 0) {
      return "no bucket";
    }
    if (percentage >= 100) {
      return "every bucket";
    }
    return "buckets 0–" + lastBucketInside(percentage);
  }

  private static int sha256V1(String clientId, String rolloutId) {
    MessageDigest md = SHA256.get();
    md.reset();
    md.update(clientId.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
    md.update((byte) ':');
    md.update(rolloutId.getBytes(StandardCharsets.UTF_8));
    byte[] d = md.digest();
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (d[i] & 0xff);
    }
    return (int) Long.remainderUnsigned(v, BUCKETS);
  }
}
