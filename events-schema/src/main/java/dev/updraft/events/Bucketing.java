package dev.updraft.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * Rollout bucketing shared by every component that must agree on it: SHA-256 of the lower-cased
 * client id, a {@code :}, and the rollout id; the first 8 bytes as an unsigned number mod 10,000.
 * A device is in a rollout at P % when its bucket is below P x 100, so raising P only adds devices.
 */
public final class Bucketing {
  /** Number of buckets. */
  public static final int BUCKETS = 10_000;

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 missing from this JVM", e);
            }
          });

  private Bucketing() {}

  /** The bucket 0..9999 of a client for a rollout. {@code clientId} is lower-cased here. */
  public static int bucket(String clientId, String rolloutId) {
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

  /** Whether a client is inside a rollout at {@code percentage} (0..100). No client id: never inside. */
  public static boolean inRollout(String clientId, String rolloutId, int percentage) {
    if (percentage >= 100) {
      return true;
    }
    if (clientId == null || clientId.isEmpty() || percentage <= 0) {
      return false;
    }
    return bucket(clientId, rolloutId) < percentage * 100;
  }
}
