package dev.updraft.edge.checkin;

import dev.updraft.events.CheckIn;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes a {@link CheckIn} as the JSON {@code CheckInCodec} writes and reads (same field names and order,
 * null fields left out, Jackson's string escaping), without Jackson's reflective serializer: the sender
 * thread encodes one check-in per device request, and at tens of thousands a second that serializer was
 * the largest cost of the check-in path. {@code CheckInJsonTest} holds it byte-equal to
 * {@code CheckInCodec.encode}. Not thread-safe: one instance per sender thread (it reuses its buffer).
 */
final class CheckInJson {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();
  private final StringBuilder sb = new StringBuilder(512);

  byte[] encode(CheckIn c) {
    StringBuilder b = sb;
    b.setLength(0);
    b.append("{\"v\":").append(c.v());
    string(b, "checkInId", c.checkInId());
    string(b, "appId", c.appId());
    string(b, "platform", c.platform());
    string(b, "runtimeVersion", c.runtimeVersion());
    string(b, "channel", c.channel());
    string(b, "clientId", c.clientId());
    string(b, "currentUpdateId", c.currentUpdateId());
    string(b, "embeddedUpdateId", c.embeddedUpdateId());
    b.append(",\"failedUpdateIds\":[");
    List<String> failed = c.failedUpdateIds();
    for (int i = 0; i < failed.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      quoted(b, failed.get(i));
    }
    b.append(']');
    string(b, "outcome", c.outcome());
    string(b, "reason", c.reason());
    string(b, "branch", c.branch());
    b.append(",\"inBranchRollout\":").append(c.inBranchRollout());
    if (c.rolloutBucket() != null) {
      b.append(",\"rolloutBucket\":").append(c.rolloutBucket().intValue());
    }
    string(b, "servedUpdateId", c.servedUpdateId());
    string(b, "servedGroupId", c.servedGroupId());
    string(b, "fatalError", c.fatalError());
    b.append(",\"atEpochMillis\":").append(c.atEpochMillis());
    string(b, "edgeId", c.edgeId());
    b.append('}');
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void string(StringBuilder b, String name, String value) {
    if (value == null) {
      return;
    }
    b.append(",\"").append(name).append("\":");
    quoted(b, value);
  }

  /**
   * A JSON string as Jackson writes it: short escapes for {@code \b \f \n \r \t}, {@code \}{@code uXXXX}
   * for other controls and for surrogates.
   */
  private static void quoted(StringBuilder b, String s) {
    b.append('"');
    int from = 0;
    for (int i = 0, n = s.length(); i < n; i++) {
      char ch = s.charAt(i);
      if (ch >= 0x20 && ch != '"' && ch != '\\' && !Character.isSurrogate(ch)) {
        continue; // copied below in one run: appending char by char was most of the sender's time
      }
      b.append(s, from, i);
      from = i + 1;
      switch (ch) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\b': b.append("\\b"); break;
        case '\f': b.append("\\f"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        case '\t': b.append("\\t"); break;
        default: // other controls, and surrogates (Jackson writes characters beyond the BMP as escaped pairs)
          b.append("\\u").append(HEX[ch >> 12]).append(HEX[(ch >> 8) & 0xf]).append(HEX[(ch >> 4) & 0xf])
              .append(HEX[ch & 0xf]);
      }
    }
    if (from == 0) {
      b.append(s); // the usual case: nothing to escape
    } else {
      b.append(s, from, s.length());
    }
    b.append('"');
  }
}
