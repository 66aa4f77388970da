package dev.updraft.controlplane.signin;

import dev.updraft.controlplane.core.CommandException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sign-ins under way: per {@code state}, the {@code nonce} and the PKCE verifier sent with it, for {@link #TTL}, used
 * once. At most {@link #MAX} (expired ones are swept first; beyond, 503). Thread-safe.
 */
final class Pending {
  static final Duration TTL = Duration.ofMinutes(10);
  static final int MAX = 10_000;

  /** One sign-in: what the callback checks and sends. */
  record Login(String nonce, String verifier, Instant startedAt) {
    /** The S256 PKCE challenge of the verifier. */
    String challenge() {
      try {
        byte[] d = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("the JVM lacks SHA-256", e);
      }
    }
  }

  private final Map<String, Login> byState = new ConcurrentHashMap<>();

  /** A new sign-in: its state. */
  String start(Login login, Instant now) {
    if (byState.size() >= MAX) {
      byState.values().removeIf(l -> !l.startedAt().plus(TTL).isAfter(now));
      if (byState.size() >= MAX) {
        throw new CommandException(503, "too-many-sign-ins", MAX + " sign-ins are under way; try again in a few minutes");
      }
    }
    String state = Sessions.random();
    byState.put(state, login);
    return state;
  }

  /** The sign-in of {@code state}, removed; null when unknown, used or older than {@link #TTL}. */
  Login take(String state, Instant now) {
    Login l = byState.remove(state);
    return l == null || !l.startedAt().plus(TTL).isAfter(now) ? null : l;
  }
}
