package dev.updraft.common;

import java.util.List;
import java.util.Locale;

/**
 * Chooses a {@code content-encoding} for a response from the request's {@code Accept-Encoding}
 * (RFC 9110 §12.5.3) among the encodings a server holds ready: the highest q-value wins; among equal
 * q-values the server's order ({@link #PREFERENCE}: the smallest first). Android 57 sends
 * {@code zstd, br, gzip}, iOS {@code br, gzip, deflate}: both then get their best stored one.
 * {@code identity} is acceptable unless the header refuses it ({@code identity;q=0}, or {@code *;q=0}
 * without naming it). Stateless and thread-safe.
 */
public final class AcceptEncoding {
  public static final String IDENTITY = "identity";
  public static final String GZIP = "gzip";
  public static final String BR = "br";
  public static final String ZSTD = "zstd";

  /** The server's order among equally acceptable encodings. */
  public static final List<String> PREFERENCE = List.of(ZSTD, BR, GZIP, IDENTITY);

  private AcceptEncoding() {}

  /**
   * The encoding to send, one of {@code available} (names as in {@link #PREFERENCE}); {@code identity}
   * when the header is absent or allows nothing else held; null only when the header refuses every
   * available encoding including identity.
   */
  public static String choose(String header, List<String> available) {
    if (header == null || header.isBlank()) {
      return available.contains(IDENTITY) ? IDENTITY : null;
    }
    String best = null;
    double bestQ = 0;
    for (String enc : PREFERENCE) {
      if (!available.contains(enc)) {
        continue;
      }
      double q = q(header, enc);
      if (q > bestQ) {
        best = enc;
        bestQ = q;
      }
    }
    return best;
  }

  /** The q-value {@code header} gives {@code encoding} (0 when not acceptable). */
  static double q(String header, String encoding) {
    double named = -1;
    double star = -1;
    for (String part : header.split(",")) {
      String[] bits = part.trim().split(";");
      String name = bits[0].trim().toLowerCase(Locale.ROOT);
      double q = 1;
      for (int i = 1; i < bits.length; i++) {
        String b = bits[i].trim();
        if (b.startsWith("q=") || b.startsWith("Q=")) {
          try {
            q = Double.parseDouble(b.substring(2).trim());
          } catch (NumberFormatException e) {
            q = 0;
          }
        }
      }
      if (name.equals(encoding) || (encoding.equals(GZIP) && name.equals("x-gzip"))) {
        named = Math.max(named, q);
      } else if (name.equals("*")) {
        star = Math.max(star, q);
      }
    }
    if (named >= 0) {
      return named;
    }
    if (star >= 0) {
      return star;
    }
    return encoding.equals(IDENTITY) ? 0.001 : 0; // identity is acceptable unless refused
  }
}
