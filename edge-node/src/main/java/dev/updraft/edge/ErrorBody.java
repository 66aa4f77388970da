package dev.updraft.edge;

import io.vertx.core.buffer.Buffer;

/** {@code {"error":{"code":"…","message":"…"}}}, the body of every refusal. */
final class ErrorBody {
  private ErrorBody() {}

  static Buffer of(String code, String message) {
    StringBuilder sb = new StringBuilder(48 + code.length() + message.length());
    sb.append("{\"error\":{\"code\":\"");
    escape(sb, code);
    sb.append("\",\"message\":\"");
    escape(sb, message);
    sb.append("\"}}");
    return Buffer.buffer(sb.toString());
  }

  /** JSON string escaping (RFC 8259 §7). */
  static void escape(StringBuilder sb, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
  }

  /** A value shown inside a message: quoted, cut to 100 characters. */
  static String shown(String v) {
    if (v == null) {
      return "(none)";
    }
    return "'" + (v.length() > 100 ? v.substring(0, 100) + "…" : v) + "'";
  }
}
