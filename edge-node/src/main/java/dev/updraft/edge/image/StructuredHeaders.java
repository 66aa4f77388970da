package dev.updraft.edge.image;

/**
 * The two pieces of RFC 8941 (structured fields) the manifest route needs, without a parser library on
 * the hot path: reading one string member of a dictionary a device sent ({@code keyid} of
 * {@code expo-expect-signature}), and writing an sf-string ({@code branchname="…"} of
 * {@code expo-manifest-filters}). Stateless and thread-safe.
 */
public final class StructuredHeaders {
  private StructuredHeaders() {}

  /**
   * The value of member {@code key} of the dictionary {@code dict} when it is an sf-string, else null
   * (absent, another type, or a dictionary that does not parse up to it). Parameters are skipped; a
   * repeated key takes its last value, as RFC 8941 says.
   */
  public static String stringMember(String dict, String key) {
    if (dict == null) {
      return null;
    }
    String found = null;
    int n = dict.length();
    int i = 0;
    while (i < n) {
      i = skipSpaces(dict, i);
      int keyStart = i;
      while (i < n && isKeyChar(dict.charAt(i))) {
        i++;
      }
      if (i == keyStart) {
        return found; // not a dictionary from here on
      }
      boolean match = i - keyStart == key.length() && dict.regionMatches(keyStart, key, 0, key.length());
      String value = null;
      if (i < n && dict.charAt(i) == '=') {
        i++;
        if (i < n && dict.charAt(i) == '"') {
          StringBuilder sb = new StringBuilder();
          i = readString(dict, i + 1, sb);
          if (i < 0) {
            return found;
          }
          value = sb.toString();
        } else {
          while (i < n && dict.charAt(i) != ';' && dict.charAt(i) != ',') {
            i++;
          }
        }
      }
      if (match) {
        found = value; // a member of another type hides an earlier string value, as its last value
      }
      while (i < n && dict.charAt(i) != ',') {
        if (dict.charAt(i) == '"') { // a quoted parameter value may hold a comma
          i = readString(dict, i + 1, new StringBuilder());
          if (i < 0) {
            return found;
          }
        } else {
          i++;
        }
      }
      i++; // the comma
    }
    return found;
  }

  /**
   * {@code value} as an sf-string ({@code "…"} with {@code \} and {@code "} escaped), or null when it
   * holds a character an sf-string cannot carry (outside printable ASCII).
   */
  public static String string(String value) {
    StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return null;
      }
      if (c == '"' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('"').toString();
  }

  /** Reads an sf-string body from {@code i} (after the opening quote) into {@code out}; the index after the closing quote, or -1. */
  private static int readString(String s, int i, StringBuilder out) {
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == '\\') {
        if (i + 1 >= n) {
          return -1;
        }
        out.append(s.charAt(i + 1));
        i += 2;
      } else if (c == '"') {
        return i + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return -1;
  }

  private static int skipSpaces(String s, int i) {
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  private static boolean isKeyChar(char c) {
    return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*';
  }
}
