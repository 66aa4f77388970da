package dev.updraft.edge.checkin;

import dev.updraft.events.CheckIn;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a {@link CheckIn} as the JSON {@code CheckInCodec} writes and reads (same field names and order,
 * null fields left out, Jackson's string escaping), straight into UTF-8 bytes in one pass: the sender
 * thread encodes one check-in per device request, and at tens of thousands a second Jackson's reflective
 * serializer (then a StringBuilder and a second encoding pass) was the largest cost of the check-in path.
 * {@code CheckInJsonTest} holds it byte-equal to {@code CheckInCodec.encode}. Not thread-safe: one
 * instance per sender thread (it reuses its buffer).
 */
final class CheckInJson {
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private byte[] buf = new byte[1024];
  private int len;

  byte[] encode(CheckIn c) {
    len = 0;
    ascii("{\"v\":");
    number(c.v());
    string("checkInId", c.checkInId());
    string("appId", c.appId());
    string("platform", c.platform());
    string("runtimeVersion", c.runtimeVersion());
    string("channel", c.channel());
    string("clientId", c.clientId());
    string("currentUpdateId", c.currentUpdateId());
    string("embeddedUpdateId", c.embeddedUpdateId());
    ascii(",\"failedUpdateIds\":[");
    List<String> failed = c.failedUpdateIds();
    for (int i = 0; i < failed.size(); i++) {
      if (i > 0) {
        put((byte) ',');
      }
      quoted(failed.get(i));
    }
    put((byte) ']');
    string("outcome", c.outcome());
    string("reason", c.reason());
    string("branch", c.branch());
    ascii(c.inBranchRollout() ? ",\"inBranchRollout\":true" : ",\"inBranchRollout\":false");
    if (c.rolloutBucket() != null) {
      ascii(",\"rolloutBucket\":");
      number(c.rolloutBucket());
    }
    string("servedUpdateId", c.servedUpdateId());
    string("servedGroupId", c.servedGroupId());
    string("fatalError", c.fatalError());
    ascii(",\"atEpochMillis\":");
    number(c.atEpochMillis());
    string("edgeId", c.edgeId());
    List<String> skipped = c.skippedUpdateIds();
    if (!skipped.isEmpty()) { // left out when empty, as the codec does
      ascii(",\"skippedUpdateIds\":[");
      for (int i = 0; i < skipped.size(); i++) {
        if (i > 0) {
          put((byte) ',');
        }
        quoted(skipped.get(i));
      }
      put((byte) ']');
    }
    string("keyId", c.keyId());
    string("addressBucket", c.addressBucket());
    put((byte) '}');
    return Arrays.copyOf(buf, len);
  }

  private void string(String name, String value) {
    if (value == null) {
      return;
    }
    ascii(",\"");
    ascii(name);
    ascii("\":");
    quoted(value);
  }

  /**
   * A JSON string as Jackson writes it: short escapes for {@code \b \f \n \r \t}, {@code \}{@code uXXXX}
   * for other controls and for surrogates (Jackson escapes characters beyond the BMP as pairs), UTF-8
   * for the rest.
   */
  private void quoted(String s) {
    int n = s.length();
    ensure(n * 6 + 2); // the worst case: every character escaped
    byte[] b = buf;
    int at = len;
    b[at++] = '"';
    for (int i = 0; i < n; i++) {
      char ch = s.charAt(i);
      if (ch < 0x80) {
        if (ch >= 0x20 && ch != '"' && ch != '\\') {
          b[at++] = (byte) ch;
          continue;
        }
        b[at++] = '\\';
        byte shortForm = shortEscape(ch);
        if (shortForm != 0) {
          b[at++] = shortForm;
        } else {
          at = unicodeEscape(b, at, ch);
        }
      } else if (ch < 0x800) {
        b[at++] = (byte) (0xc0 | (ch >> 6));
        b[at++] = (byte) (0x80 | (ch & 0x3f));
      } else if (Character.isSurrogate(ch)) {
        b[at++] = '\\';
        at = unicodeEscape(b, at, ch);
      } else {
        b[at++] = (byte) (0xe0 | (ch >> 12));
        b[at++] = (byte) (0x80 | ((ch >> 6) & 0x3f));
        b[at++] = (byte) (0x80 | (ch & 0x3f));
      }
    }
    b[at++] = '"';
    len = at;
  }

  /** The letter of a two-character JSON escape (n for a newline, and so on), or 0 when {@code ch} needs a u escape. */
  private static byte shortEscape(char ch) {
    return switch (ch) {
      case '"' -> (byte) '"';
      case '\\' -> (byte) '\\';
      case '\b' -> (byte) 'b';
      case '\f' -> (byte) 'f';
      case '\n' -> (byte) 'n';
      case '\r' -> (byte) 'r';
      case '\t' -> (byte) 't';
      default -> 0;
    };
  }

  /** Writes {@code uXXXX} (the backslash is already written). */
  private static int unicodeEscape(byte[] b, int at, char ch) {
    b[at++] = 'u';
    b[at++] = HEX[ch >> 12];
    b[at++] = HEX[(ch >> 8) & 0xf];
    b[at++] = HEX[(ch >> 4) & 0xf];
    b[at++] = HEX[ch & 0xf];
    return at;
  }

  /** Field names and fixed fragments: ASCII only. */
  private void ascii(String s) {
    int n = s.length();
    ensure(n);
    byte[] b = buf;
    int at = len;
    for (int i = 0; i < n; i++) {
      b[at++] = (byte) s.charAt(i);
    }
    len = at;
  }

  private void number(long v) {
    ascii(Long.toString(v));
  }

  private void put(byte x) {
    ensure(1);
    buf[len++] = x;
  }

  private void ensure(int more) {
    if (len + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
  }
}
