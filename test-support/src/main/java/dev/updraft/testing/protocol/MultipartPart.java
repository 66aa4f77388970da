package dev.updraft.testing.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One part of a multipart body: its headers exactly as received (order, letter case and duplicates
 * kept) and its exact body bytes. Immutable.
 */
public final class MultipartPart {

  /** One part header as received: the name is not normalised, the value is trimmed of spaces and tabs. */
  public record Header(String name, String value) {}

  private final List<Header> headers;
  private final byte[] body;

  public MultipartPart(List<Header> headers, byte[] body) {
    this.headers = List.copyOf(headers);
    this.body = body.clone();
  }

  /** Every header in the order received. */
  public List<Header> headers() {
    return headers;
  }

  /**
   * The value of the first header named exactly {@code name} (letter case significant, as iOS looks
   * up {@code expo-signature}), or null.
   */
  public String headerExact(String name) {
    for (Header h : headers) {
      if (h.name().equals(name)) {
        return h.value();
      }
    }
    return null;
  }

  /** The value of the first header whose name equals {@code name} ignoring case, or null. */
  public String header(String name) {
    for (Header h : headers) {
      if (h.name().equalsIgnoreCase(name)) {
        return h.value();
      }
    }
    return null;
  }

  /** Every header name as received. */
  public List<String> headerNames() {
    List<String> names = new ArrayList<>();
    for (Header h : headers) {
      names.add(h.name());
    }
    return names;
  }

  /** The {@code content-type} header value, or null. */
  public String contentType() {
    return header("content-type");
  }

  /**
   * The {@code name} parameter of {@code content-disposition} (how both clients tell the parts apart),
   * or null when there is none.
   */
  public String name() {
    String cd = header("content-disposition");
    return cd == null ? null : parameter(cd, "name");
  }

  /** A copy of the exact body bytes. */
  public byte[] body() {
    return body.clone();
  }

  /** The body decoded as UTF-8. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /**
   * A parameter of a header value such as {@code inline; name="manifest"} or
   * {@code multipart/mixed; boundary=abc}: token or quoted-string, name compared ignoring case.
   */
  static String parameter(String headerValue, String param) {
    String[] pieces = splitParameters(headerValue);
    for (int i = 1; i < pieces.length; i++) {
      String p = pieces[i].trim();
      int eq = p.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      if (p.substring(0, eq).trim().toLowerCase(Locale.ROOT).equals(param.toLowerCase(Locale.ROOT))) {
        String v = p.substring(eq + 1).trim();
        if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
          return v.substring(1, v.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
        }
        return v;
      }
    }
    return null;
  }

  /** Splits on {@code ;} outside quoted strings. */
  private static String[] splitParameters(String v) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '"' && (i == 0 || v.charAt(i - 1) != '\\')) {
        quoted = !quoted;
      }
      if (c == ';' && !quoted) {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    out.add(cur.toString());
    return out.toArray(new String[0]);
  }

  @Override
  public String toString() {
    return "MultipartPart{name=" + name() + ", headers=" + headers + ", bodyBytes=" + body.length + "}";
  }
}
