package dev.updraft.load.check;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small strict parser of {@code multipart/mixed} bodies, as strict as the iOS client's reader
 * (protocol.md §2): the first delimiter {@code --B\r\n} (a preamble before it is allowed), separators
 * {@code \r\n--B\r\n}, the close {@code \r\n--B--} followed by a required CRLF, part headers ending at the
 * first CRLFCRLF, each part named by the {@code name} parameter of its {@code content-disposition}.
 * Stateless and thread-safe.
 *
 * <p>Malformed input is a value ({@link Result#error()}), never an exception.
 */
final class Multipart {
  private Multipart() {}

  /** One part: header names exactly as received, the body as an offset range of the input. */
  record Part(String name, Map<String, String> headers, byte[] source, int from, int to) {
    byte[] body() {
      byte[] b = new byte[to - from];
      System.arraycopy(source, from, b, 0, b.length);
      return b;
    }

    String bodyText() {
      return new String(source, from, to - from, StandardCharsets.UTF_8);
    }

    /** A header by exact (case-sensitive) name, as iOS looks up {@code expo-signature}. */
    String header(String exactName) {
      return headers.get(exactName);
    }

    String headerIgnoreCase(String name) {
      for (Map.Entry<String, String> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) {
          return e.getValue();
        }
      }
      return null;
    }
  }

  /** The parts, or an error naming the problem. */
  record Result(List<Part> parts, String error) {
    boolean ok() {
      return error == null;
    }

    Part part(String name) {
      for (Part p : parts) {
        if (name.equals(p.name())) {
          return p;
        }
      }
      return null;
    }

    static Result fail(String e) {
      return new Result(List.of(), e);
    }
  }

  /** The boundary from a {@code multipart/mixed; boundary=...} content type, or null. */
  private static volatile String[] lastBoundary = {"", null};

  /** The boundary, remembered for the last content type seen (a server sends the same one every time). */
  static String boundary(String contentType) {
    if (contentType == null) {
      return null;
    }
    String[] last = lastBoundary;
    if (contentType.equals(last[0])) {
      return last[1];
    }
    String b = parseBoundary(contentType);
    lastBoundary = new String[] {contentType, b};
    return b;
  }

  private static String parseBoundary(String contentType) {
    String[] parts = contentType.split(";");
    if (!parts[0].trim().toLowerCase(Locale.ROOT).equals("multipart/mixed")) {
      return null;
    }
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim();
      int eq = p.indexOf('=');
      if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase("boundary")) {
        String b = p.substring(eq + 1).trim();
        if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) {
          b = b.substring(1, b.length() - 1);
        }
        return b.isEmpty() || b.length() > 70 ? null : b;
      }
    }
    return null;
  }

  static Result parse(String contentType, byte[] body) {
    String boundary = boundary(contentType);
    if (boundary == null) {
      return Result.fail("no multipart/mixed boundary in content-type: " + contentType);
    }
    if (body.length == 0) {
      return new Result(List.of(), null);
    }
    byte[] dash = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
    int first;
    if (startsWith(body, 0, dash)) {
      first = 0;
    } else {
      byte[] crDash = ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII);
      int at = indexOf(body, crDash, 0);
      if (at < 0) {
        return Result.fail("first delimiter --" + boundary + " not found");
      }
      first = at + 2;
    }
    int pos = first + dash.length;
    if (!startsWith(body, pos, CRLF)) {
      return Result.fail("first delimiter not followed by CRLF");
    }
    pos += 2;
    byte[] sep = ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII);
    List<Part> parts = new ArrayList<>();
    while (true) {
      int end = indexOf(body, sep, pos);
      if (end < 0) {
        return Result.fail("close delimiter --" + boundary + "-- not found");
      }
      int headersEnd = indexOf(body, CRLFCRLF, pos);
      Map<String, String> headers = new LinkedHashMap<>();
      int bodyFrom;
      if (startsWith(body, pos, CRLF)) {
        bodyFrom = pos + 2;
      } else if (headersEnd < 0 || headersEnd > end) {
        return Result.fail("part " + parts.size() + " has no CRLFCRLF after its headers");
      } else {
        String block = new String(body, pos, headersEnd - pos, StandardCharsets.UTF_8);
        int start = 0;
        while (start <= block.length()) {
          int eol = block.indexOf("\r\n", start);
          String line = eol < 0 ? block.substring(start) : block.substring(start, eol);
          int colon = line.indexOf(':');
          if (colon <= 0) {
            return Result.fail("part " + parts.size() + " has a malformed header line: " + line);
          }
          headers.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
          if (eol < 0) {
            break;
          }
          start = eol + 2;
        }
        bodyFrom = headersEnd + 4;
      }
      String name = null;
      for (Map.Entry<String, String> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase("content-disposition")) {
          name = dispositionName(e.getValue());
        }
      }
      parts.add(new Part(name, headers, body, bodyFrom, end));
      int after = end + sep.length;
      if (startsWith(body, after, DASHDASH)) {
        if (!startsWith(body, after + 2, CRLF)) {
          return Result.fail("close delimiter --" + boundary + "-- not followed by CRLF");
        }
        return new Result(parts, null);
      }
      if (!startsWith(body, after, CRLF)) {
        return Result.fail("delimiter of part " + parts.size() + " not followed by CRLF");
      }
      pos = after + 2;
    }
  }

  /** The {@code name} parameter of a content-disposition value (quoted or token), or null. */
  static String dispositionName(String value) {
    for (String p : value.split(";")) {
      String t = p.trim();
      int eq = t.indexOf('=');
      if (eq > 0 && t.substring(0, eq).trim().equalsIgnoreCase("name")) {
        String v = t.substring(eq + 1).trim();
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
          v = v.substring(1, v.length() - 1);
        }
        return v;
      }
    }
    return null;
  }

  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] CRLFCRLF = {'\r', '\n', '\r', '\n'};
  private static final byte[] DASHDASH = {'-', '-'};

  static boolean startsWith(byte[] a, int at, byte[] p) {
    if (at < 0 || at + p.length > a.length) {
      return false;
    }
    for (int i = 0; i < p.length; i++) {
      if (a[at + i] != p[i]) {
        return false;
      }
    }
    return true;
  }

  static int indexOf(byte[] a, byte[] p, int from) {
    int last = a.length - p.length;
    byte f = p[0];
    for (int i = Math.max(0, from); i <= last; i++) {
      if (a[i] == f && startsWith(a, i, p)) {
        return i;
      }
    }
    return -1;
  }
}
