package dev.updraft.edge;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chooses the response format from {@code Accept} (protocol.md §1): {@code multipart/mixed} whenever it
 * is acceptable; otherwise a single JSON manifest as {@code application/expo+json} or
 * {@code application/json} (the one with the higher q; expo+json on a tie); otherwise nothing.
 * RFC 7231 media ranges ({@code *}{@code /*}, {@code multipart/*}) and q-values count; {@code q=0} means
 * "not acceptable". No {@code Accept} means anything is acceptable.
 *
 * <p>Devices send one of a handful of values, so results are cached per distinct header value (bounded).
 * Thread-safe.
 */
final class AcceptNegotiation {
  static final int NONE = 0;
  static final int MULTIPART = 1;
  static final int EXPO_JSON = 2;
  static final int JSON = 3;

  private static final String CLIENTS = "multipart/mixed,application/expo+json,application/json";
  private static final int CACHE_LIMIT = 256;
  private static final ConcurrentHashMap<String, Integer> CACHE = new ConcurrentHashMap<>();

  private AcceptNegotiation() {}

  static int negotiate(String accept) {
    if (accept == null || accept.isEmpty() || accept.equals(CLIENTS)) {
      return MULTIPART;
    }
    Integer cached = CACHE.get(accept);
    if (cached != null) {
      return cached;
    }
    int result = parse(accept);
    if (CACHE.size() < CACHE_LIMIT) {
      CACHE.put(accept, result);
    }
    return result;
  }

  static int parse(String accept) {
    // best (most specific) match per candidate: specificity 3 exact, 2 type/*, 1 */*; q in thousandths
    int[] spec = new int[4];
    int[] q = new int[4];
    for (String range : accept.split(",")) {
      String[] pieces = range.split(";");
      if (pieces.length == 0) {
        continue; // a range of only ';' (split drops trailing empty strings)
      }
      String type = pieces[0].trim().toLowerCase(Locale.ROOT);
      if (type.isEmpty()) {
        continue;
      }
      int quality = 1000;
      for (int i = 1; i < pieces.length; i++) {
        String p = pieces[i].trim();
        if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
          quality = quality(p.substring(2).trim());
        }
      }
      match(type, "multipart/mixed", MULTIPART, quality, spec, q);
      match(type, "application/expo+json", EXPO_JSON, quality, spec, q);
      match(type, "application/json", JSON, quality, spec, q);
    }
    if (q[MULTIPART] > 0) {
      return MULTIPART;
    }
    if (q[EXPO_JSON] > 0 || q[JSON] > 0) {
      return q[EXPO_JSON] >= q[JSON] ? EXPO_JSON : JSON;
    }
    return NONE;
  }

  private static void match(String range, String candidate, int slot, int quality, int[] spec, int[] q) {
    int s;
    if (range.equals(candidate)) {
      s = 3;
    } else if (range.equals("*/*")) {
      s = 1;
    } else if (range.endsWith("/*") && candidate.startsWith(range.substring(0, range.length() - 1))) {
      s = 2;
    } else {
      return;
    }
    if (s > spec[slot]) {
      spec[slot] = s;
      q[slot] = quality;
    }
  }

  /** A q-value in thousandths; anything unparseable counts as 0 (not acceptable). */
  private static int quality(String v) {
    try {
      double d = Double.parseDouble(v);
      return d <= 0 ? 0 : d >= 1 ? 1000 : Math.max(1, (int) Math.round(d * 1000));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
