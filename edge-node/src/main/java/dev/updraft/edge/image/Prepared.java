package dev.updraft.edge.image;

import dev.updraft.events.EventPayload.PlatformUpdate;
import io.netty.util.AsciiString;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Every response body and header value one manifest or directive can be served with, built once when
 * the image is built so that a device request only chooses between ready bytes: no JSON, no signing, no
 * string building on the hot path. Immutable and thread-safe; the buffers are shared by every event loop
 * and are only ever read (Vert.x writes a slice of them).
 *
 * <p>Variants: a {@code multipart/mixed} body without and (when the entry carries a signature) with the
 * {@code expo-signature} part header, and for manifests the bare JSON body for clients that accept only
 * JSON (its signature then goes in the {@code expo-signature} response header). The protocol version only
 * changes a response header, so it needs no variant of its own.
 *
 * <p>Framing follows what iOS needs (protocol.md §2): {@code --B CRLF} first, {@code CRLF--B CRLF}
 * between parts, {@code CRLF--B-- CRLF} at the end, lower-case part-header names. The boundary is derived
 * from the body's SHA-256, so every edge serves byte-identical answers, and is checked never to occur in
 * a body.
 */
public final class Prepared {
  /** The extensions part every manifest answer carries. */
  static final String EXTENSIONS = "{\"assetRequestHeaders\":{}}";

  private final boolean directive;
  private final String entryId;
  private final String groupId;
  private final PlatformUpdate source;
  private final AsciiString multipartContentType;
  private final Buffer multipart;
  private final Buffer multipartSigned;
  private final Buffer json;
  private final AsciiString signature;
  private final int bytes;

  private Prepared(boolean directive, String entryId, String groupId, PlatformUpdate source, String body, String signature) {
    this.directive = directive;
    this.entryId = entryId;
    this.groupId = groupId;
    this.source = source;
    byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
    String boundary = boundaryFor(bodyBytes);
    this.multipartContentType = AsciiString.cached("multipart/mixed; boundary=" + boundary);
    this.multipart = Buffer.buffer(render(directive, boundary, body, null));
    this.multipartSigned = signature == null ? null : Buffer.buffer(render(directive, boundary, body, signature));
    this.json = directive ? null : Buffer.buffer(bodyBytes);
    this.signature = signature == null ? null : AsciiString.cached(signature);
    this.bytes = multipart.length() + (multipartSigned == null ? 0 : multipartSigned.length())
        + (json == null ? 0 : json.length());
  }

  /** A manifest: multipart with a {@code manifest} and an {@code extensions} part, or bare JSON. */
  static Prepared manifest(String groupId, PlatformUpdate u) {
    return new Prepared(false, u.updateId(), groupId, u, u.body(), usableSignature(u.signature()));
  }

  /** A directive entry (a roll back to embedded): multipart with one {@code directive} part. */
  static Prepared directive(String groupId, PlatformUpdate u) {
    return new Prepared(true, u.updateId(), groupId, u, u.body(), usableSignature(u.signature()));
  }

  /** A {@code noUpdateAvailable} directive with the given body and (nullable) signature. */
  static Prepared noUpdate(String body, String signature) {
    return new Prepared(true, null, null, null, body, usableSignature(signature));
  }

  /** Whether this is a directive (no JSON variant exists). */
  public boolean directive() {
    return directive;
  }

  /** The manifest {@code id} (for a rollback: the entry's own id, never sent); null for noUpdateAvailable. */
  public String entryId() {
    return entryId;
  }

  /** The group this entry belongs to; null for noUpdateAvailable. */
  public String groupId() {
    return groupId;
  }

  PlatformUpdate source() {
    return source;
  }

  /** {@code multipart/mixed; boundary=…} for either multipart variant. */
  public AsciiString multipartContentType() {
    return multipartContentType;
  }

  /** The multipart body without {@code expo-signature}. */
  public Buffer multipart() {
    return multipart;
  }

  /** The multipart body with the {@code expo-signature} part header; null when the entry is unsigned. */
  public Buffer multipartSigned() {
    return multipartSigned;
  }

  /** The bare JSON body (manifests only; null for directives). */
  public Buffer json() {
    return json;
  }

  /** The {@code expo-signature} value; null when unsigned. */
  public AsciiString signature() {
    return signature;
  }

  /** Bytes held by the prepared bodies. */
  public int bytes() {
    return bytes;
  }

  /**
   * A signature value is a header line: anything that could break out of it (CR, LF) makes the entry
   * unsigned rather than corrupt the framing. The control plane never writes such a value.
   */
  private static String usableSignature(String s) {
    if (s == null || s.isEmpty() || s.indexOf('\r') >= 0 || s.indexOf('\n') >= 0) {
      return null;
    }
    return s;
  }

  private static byte[] render(boolean directive, String boundary, String body, String signature) {
    StringBuilder sb = new StringBuilder(body.length() + 400);
    sb.append("--").append(boundary).append("\r\n");
    sb.append("content-type: application/json\r\n");
    sb.append("content-disposition: inline; name=\"").append(directive ? "directive" : "manifest").append("\"\r\n");
    if (signature != null) {
      sb.append("expo-signature: ").append(signature).append("\r\n");
    }
    sb.append("\r\n").append(body);
    if (!directive) {
      sb.append("\r\n--").append(boundary).append("\r\n");
      sb.append("content-type: application/json\r\n");
      sb.append("content-disposition: inline; name=\"extensions\"\r\n");
      sb.append("\r\n").append(EXTENSIONS);
    }
    sb.append("\r\n--").append(boundary).append("--\r\n");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code updraft-} and 40 hex digits of the body's SHA-256: a token of 48 characters (RFC 2046 allows
   * 70), the same on every edge, and checked not to occur in the body or the extensions part.
   */
  static String boundaryFor(byte[] body) {
    byte[] d;
    try {
      d = MessageDigest.getInstance("SHA-256").digest(body);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
    StringBuilder sb = new StringBuilder("updraft-");
    for (int i = 0; i < 20; i++) {
      sb.append(Character.forDigit((d[i] >> 4) & 0xf, 16)).append(Character.forDigit(d[i] & 0xf, 16));
    }
    String base = sb.toString();
    String candidate = base;
    String text = new String(body, StandardCharsets.UTF_8);
    for (int n = 1; text.contains(candidate); n++) {
      candidate = base + "-" + n;
    }
    return candidate;
  }
}
