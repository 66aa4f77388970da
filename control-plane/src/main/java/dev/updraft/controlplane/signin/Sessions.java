package dev.updraft.controlplane.signin;

import dev.updraft.controlplane.core.CommandException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Signed-in people, in memory: the cookie carries 256 random bits, the map keeps only their SHA-256, so nothing in
 * memory or a heap dump lets one present a session. A session ends at its {@code expiresAt} (found then, it is
 * removed) or when signed out; a restart signs everybody out. At most {@link #MAX} live sessions (expired ones are
 * swept first; beyond, a sign-in is refused with 503). Thread-safe.
 */
final class Sessions {
  static final int MAX = 100_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, Person> byHash = new ConcurrentHashMap<>();

  /** A new session for {@code p}: the secret to put in the cookie. */
  String open(Person p, Instant now) {
    if (byHash.size() >= MAX) {
      byHash.values().removeIf(s -> !s.expiresAt().isAfter(now));
      if (byHash.size() >= MAX) {
        throw new CommandException(503, "too-many-sessions", "this control plane holds " + MAX + " console sessions; sign in later");
      }
    }
    String secret = random();
    byHash.put(sha256(secret), p);
    return secret;
  }

  /** The person of a live session, or null (unknown, signed out or expired). */
  Person find(String secret, Instant now) {
    String h = sha256(secret);
    Person p = byHash.get(h);
    if (p != null && !p.expiresAt().isAfter(now)) {
      byHash.remove(h, p);
      return null;
    }
    return p;
  }

  /** Ends the session; whether there was one. */
  boolean close(String secret) {
    return byHash.remove(sha256(secret)) != null;
  }

  int size() {
    return byHash.size();
  }

  /** 256 random bits, base64url without padding. */
  static String random() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM lacks SHA-256", e);
    }
  }
}
