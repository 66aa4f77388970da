package dev.updraft.controlplane.commands;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Token secrets: {@code updraft_} and 256 random bits in base64url; only their SHA-256 hex is ever
 * stored (in the {@code token.issued} event). Comparisons are constant-time. Thread-safe.
 */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  public static final String PREFIX = "updraft_";

  private Tokens() {}

  /** A new secret: 32 random bytes. */
  public static String newSecret() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** A new token id: {@code tok_} and 12 hex digits. */
  public static String newTokenId() {
    byte[] b = new byte[6];
    RANDOM.nextBytes(b);
    return "tok_" + HexFormat.of().formatHex(b);
  }

  /** SHA-256 hex of a secret's UTF-8 bytes. */
  public static String sha256Hex(String secret) {
    return HexFormat.of().formatHex(sha256(secret));
  }

  /** Whether {@code presented} hashes to {@code expectedSha256Hex}, compared in constant time. */
  public static boolean matches(String presented, String expectedSha256Hex) {
    byte[] expected;
    try {
      expected = HexFormat.of().parseHex(expectedSha256Hex);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(sha256(presented), expected);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }
}
