package dev.updraft.testing.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A strict {@code multipart/mixed} reader modelled on expo-updates' iOS reader
 * ({@code UpdatesMultipartStreamReader.swift}), which is the least forgiving client:
 *
 * <ul>
 *   <li>the first delimiter is {@code --B} followed by CRLF (a preamble before {@code CRLF--B CRLF} is
 *       tolerated and reported);
 *   <li>parts are separated by {@code CRLF--B CRLF}; nothing (not even spaces) may follow a delimiter
 *       before its CRLF;
 *   <li>the body ends with {@code CRLF--B--} <em>followed by CRLF</em>; iOS reports an error without it;
 *   <li>a part's headers end at its first {@code CRLFCRLF}; header names are kept exactly as received
 *       (iOS looks {@code expo-signature} up case-sensitively), each line must be {@code name: value};
 *   <li>a part's body is the exact bytes between its {@code CRLFCRLF} and the CRLF before the next
 *       delimiter: what a code signature covers.
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class StrictMultipartParser {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] CRLFCRLF = {'\r', '\n', '\r', '\n'};

  private StrictMultipartParser() {}

  /**
   * Parses {@code body} sent with {@code contentType}.
   *
   * @throws MultipartFormatException naming the broken rule and its byte offset
   */
  public static MultipartBody parse(String contentType, byte[] body) {
    String boundary = MultipartBody.boundaryOf(contentType);
    byte[] dash = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
    byte[] delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII);

    int preamble;
    int pos;
    if (startsWith(body, 0, dash)) {
      preamble = 0;
      pos = dash.length;
    } else {
      int first = indexOf(body, delimiter, 0);
      if (first < 0) {
        throw new MultipartFormatException("first delimiter --" + boundary + " not found (body starts "
            + preview(body, 0) + ")");
      }
      preamble = first + 2;
      pos = first + delimiter.length;
    }
    if (startsWith(body, pos, new byte[] {'-', '-'})) {
      throw new MultipartFormatException("body closes before any part at offset=" + pos);
    }
    if (!startsWith(body, pos, CRLF)) {
      throw new MultipartFormatException("first delimiter not followed by CRLF at offset=" + pos + ": " + preview(body, pos));
    }
    pos += 2;

    List<MultipartPart> parts = new ArrayList<>();
    while (true) {
      int end = indexOf(body, delimiter, pos);
      if (end < 0) {
        throw new MultipartFormatException(
            "no closing delimiter CRLF--" + boundary + "-- after the part starting at offset=" + pos);
      }
      parts.add(part(body, pos, end));
      int after = end + delimiter.length;
      if (startsWith(body, after, new byte[] {'-', '-'})) {
        int close = after + 2;
        if (!startsWith(body, close, CRLF)) {
          throw new MultipartFormatException("closing delimiter --" + boundary
              + "-- not followed by CRLF at offset=" + close + " (iOS rejects this): " + preview(body, close));
        }
        return new MultipartBody(boundary, preamble, parts, body.length - close - 2);
      }
      if (!startsWith(body, after, CRLF)) {
        throw new MultipartFormatException(
            "delimiter not followed by CRLF at offset=" + after + ": " + preview(body, after));
      }
      pos = after + 2;
    }
  }

  private static MultipartPart part(byte[] body, int start, int end) {
    List<MultipartPart.Header> headers = new ArrayList<>();
    int bodyStart;
    if (startsWith(body, start, CRLF) && start + 2 <= end) {
      bodyStart = start + 2; // a part without headers
    } else {
      int headerEnd = indexOf(body, CRLFCRLF, start);
      if (headerEnd < 0 || headerEnd + 4 > end) {
        throw new MultipartFormatException("part at offset=" + start + " has no CRLFCRLF ending its headers");
      }
      String block = new String(body, start, headerEnd - start, StandardCharsets.UTF_8);
      for (String line : block.split("\r\n", -1)) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new MultipartFormatException("part header line without 'name:' at offset=" + start + ": '" + line + "'");
        }
        headers.add(new MultipartPart.Header(line.substring(0, colon), line.substring(colon + 1).strip()));
      }
      bodyStart = headerEnd + 4;
    }
    return new MultipartPart(headers, Arrays.copyOfRange(body, bodyStart, end));
  }

  static boolean startsWith(byte[] a, int at, byte[] prefix) {
    if (at < 0 || at + prefix.length > a.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (a[at + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** The first index of {@code needle} in {@code hay} at or after {@code from}, or -1. */
  public static int indexOf(byte[] hay, byte[] needle, int from) {
    outer:
    for (int i = Math.max(0, from); i <= hay.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static String preview(byte[] b, int at) {
    int n = Math.min(b.length - Math.max(0, at), 24);
    if (n <= 0) {
      return "<end of body>";
    }
    return "'" + new String(b, at, n, StandardCharsets.ISO_8859_1).replace("\r", "\\r").replace("\n", "\\n") + "'";
  }
}
