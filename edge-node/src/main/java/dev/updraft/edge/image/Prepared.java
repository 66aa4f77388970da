package dev.updraft.edge.image;

import dev.updraft.events.UpdateEvents.PlatformUpdate;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every response body and header value one manifest or directive can be served with, built once when
 * the image is built so that a device request only chooses between ready bytes: no JSON, no signing, no
 * string building on the hot path. Immutable and thread-safe; the buffers are shared by every event loop
 * and are only ever read (Vert.x writes a slice of them).
 *
 * <p>The bytes are held once ({@link #bytes()}): the body, and the few header and trailer bytes each variant
 * adds; the first variant (signed with the ring's first key, else unsigned) is served as one slice of that
 * array, any other as three slices.
 *
 * <p>Variants: a {@code multipart/mixed} body without {@code expo-signature}, and one per key of the
 * app's key ring the entry was signed with ({@link #multipartSigned(int)}, indexed like the ring): its
 * {@code expo-signature} part header and, for a chain-mode key, a {@code certificate_chain} part
 * ({@code application/x-pem-file}, leaf first). Manifests also have the bare JSON body for clients that
 * accept only JSON (the signature then goes in the {@code expo-signature} response header,
 * {@link #signature(int)}). The protocol version only changes a response header, so it needs no variant.
 *
 * <p>Framing follows what iOS needs (protocol.md §2): {@code --B CRLF} first, {@code CRLF--B CRLF}
 * between parts, {@code CRLF--B-- CRLF} at the end, lower-case part-header names. The boundary is derived
 * from the body's SHA-256, so every edge serves byte-identical answers, and is checked never to occur in
 * any part.
 */
public final class Prepared {
  /** The extensions part every manifest answer carries. */
  static final String EXTENSIONS = "{\"assetRequestHeaders\":{}}";

  private final boolean directive;
  private final String entryId;
  private final String groupId;
  private final PlatformUpdate source;
  private final AsciiString multipartContentType;
  /**
   * Every byte this entry is served with, held once: the first variant's head, the body and that variant's
   * tail, then the other heads and tails of the multipart variants (each variant is its head, the body and
   * its tail: one slice of this array for the first, three slices for the others).
   */
  private final byte[] data;
  private final int bodyOffset;
  private final int bodyLength;
  /** Per variant (0: unsigned, 1 + k: signed with key k), head offset, head length, tail offset, tail length; null: none. */
  private final int[][] layout;
  private final AsciiString[] signatures;

  /**
   * @param signatures per key of {@code keys} (same index), the {@code expo-signature} value or null
   */
  private Prepared(boolean directive, String entryId, String groupId, PlatformUpdate source, String body,
      String[] signatures, List<SigningKey> keys) {
    this.directive = directive;
    this.entryId = entryId;
    this.groupId = groupId;
    this.source = source;
    byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
    String boundary = boundaryFor(bodyBytes, keys);
    this.multipartContentType = new AsciiString("multipart/mixed; boundary=" + boundary); // bytes only, no String kept
    this.signatures = new AsciiString[keys.size()];
    this.layout = new int[keys.size() + 1][];
    byte[][] heads = new byte[keys.size() + 1][];
    byte[][] tails = new byte[keys.size() + 1][];
    byte[] plainTail = tail(directive, boundary, null);
    heads[0] = head(directive, boundary, null);
    tails[0] = plainTail;
    for (int k = 0; k < keys.size(); k++) {
      if (signatures[k] != null) {
        String chain = keys.get(k).chainPem();
        heads[k + 1] = head(directive, boundary, signatures[k]);
        tails[k + 1] = chain == null ? plainTail : tail(directive, boundary, chain);
      }
    }
    // the variant most requests get (signed with the ring's first key, else unsigned) is laid out as head,
    // body, tail in a row, so it is served as one slice: Netty copies a heap slice straight to the socket's
    // direct buffer, while a composite of three is first gathered into a new heap buffer
    int first = heads.length > 1 && heads[1] != null ? 1 : 0;
    ByteArrayOutputStream out = new ByteArrayOutputStream(bodyBytes.length + 400 * (keys.size() + 1));
    int[] headAt = new int[heads.length];
    int[] tailAt = new int[heads.length];
    headAt[first] = append(out, heads[first]);
    this.bodyOffset = append(out, bodyBytes);
    this.bodyLength = bodyBytes.length;
    tailAt[first] = append(out, tails[first]);
    int plainTailAt = tails[first] == plainTail ? tailAt[first] : append(out, plainTail);
    for (int v = 0; v < heads.length; v++) {
      if (heads[v] == null) {
        continue;
      }
      if (v != first) {
        headAt[v] = append(out, heads[v]);
        tailAt[v] = tails[v] == plainTail ? plainTailAt : append(out, tails[v]);
      }
      layout[v] = new int[] {headAt[v], heads[v].length, tailAt[v], tails[v].length};
    }
    this.data = out.toByteArray();
    for (int k = 0; k < keys.size(); k++) {
      if (signatures[k] != null) {
        // a view of the signed head's bytes, not a copy (signature values are ASCII: usableSignature); the
        // value ends the head, before CRLF CRLF
        int sigAt = headAt[k + 1] + heads[k + 1].length - 4 - signatures[k].length();
        this.signatures[k] = new AsciiString(data, sigAt, signatures[k].length(), false);
      }
    }
  }

  private static int append(ByteArrayOutputStream out, byte[] b) {
    int at = out.size();
    out.writeBytes(b);
    return at;
  }

  /** A manifest: multipart with a {@code manifest} and an {@code extensions} part, or bare JSON. */
  static Prepared manifest(String groupId, PlatformUpdate u, List<SigningKey> keys) {
    return new Prepared(false, u.updateId(), groupId, u, u.body(), signaturesFor(u, keys), keys);
  }

  /** A directive entry (a roll back to embedded): multipart with one {@code directive} part. */
  static Prepared directive(String groupId, PlatformUpdate u, List<SigningKey> keys) {
    return new Prepared(true, u.updateId(), groupId, u, u.body(), signaturesFor(u, keys), keys);
  }

  /**
   * The entry {@code held} (its body left out: this prepared entry holds it), from {@code body}: what the
   * image keeps, so that the event's own copy of the body is not held beside the prepared bytes.
   */
  static Prepared entry(boolean directive, String groupId, PlatformUpdate held, String body, List<SigningKey> keys) {
    return new Prepared(directive, held.updateId(), groupId, held, body, signaturesFor(held, keys), keys);
  }

  /**
   * The {@code noUpdateAvailable} directive: {@code body}, signed with each key of the ring whose own
   * no-update body is the same bytes.
   */
  static Prepared noUpdate(String body, List<SigningKey> keys) {
    String[] sigs = new String[keys.size()];
    for (int k = 0; k < keys.size(); k++) {
      SigningKey key = keys.get(k);
      sigs[k] = body.equals(key.noUpdateBody()) ? usableSignature(key.noUpdateSignature()) : null;
    }
    return new Prepared(true, null, null, null, body, sigs, keys);
  }

  /**
   * The entry's signature per key of the ring: from {@code signatures} (events written with the key
   * ring), or else the one {@code signature} for the keyid it names (older events; {@code root} when it
   * names none).
   */
  private static String[] signaturesFor(PlatformUpdate u, List<SigningKey> keys) {
    String[] out = new String[keys.size()];
    Map<String, String> byKey = u.signatures();
    String legacy = byKey.isEmpty() ? usableSignature(u.signature()) : null;
    String legacyKeyId = null;
    if (legacy != null) {
      legacyKeyId = StructuredHeaders.stringMember(legacy, "keyid");
      legacyKeyId = legacyKeyId == null ? "root" : legacyKeyId;
    }
    for (int k = 0; k < keys.size(); k++) {
      String keyId = keys.get(k).keyId();
      out[k] = legacy != null ? (keyId.equals(legacyKeyId) ? legacy : null) : usableSignature(byKey.get(keyId));
    }
    return out;
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

  /** {@code multipart/mixed; boundary=…} for every multipart variant. */
  public AsciiString multipartContentType() {
    return multipartContentType;
  }

  /** The multipart body without {@code expo-signature} (a view of the held bytes). */
  public Buffer multipart() {
    return variant(0);
  }

  /**
   * The multipart body signed with key {@code key} of the ring (with its {@code certificate_chain} part
   * in chain mode); null when the entry has no signature of that key.
   */
  public Buffer multipartSigned(int key) {
    return variant(key + 1);
  }

  /** The multipart body signed with the ring's first key; null when unsigned or the app has no key. */
  public Buffer multipartSigned() {
    return layout.length < 2 ? null : variant(1);
  }

  /** The bare JSON body (manifests only; null for directives). */
  public Buffer json() {
    return directive ? null : BufferInternal.buffer(Unpooled.wrappedBuffer(data, bodyOffset, bodyLength));
  }

  /** The body as signed (what a re-preparation under another key ring starts from). */
  String body() {
    return new String(data, bodyOffset, bodyLength, StandardCharsets.UTF_8);
  }

  /**
   * Variant {@code v} as a view: its head, the body and its tail, slices of the one array (a new wrapper per
   * call, so event loops never share reader indexes). Read-only when it is three slices; the one slice of
   * the first variant is not wrapped read-only (as {@link #json()} is not): a read-only view would hide the
   * array from the copy to the socket. Nothing writes to a response buffer.
   */
  private Buffer variant(int v) {
    int[] l = layout[v];
    if (l == null) {
      return null;
    }
    if (l[0] + l[1] == bodyOffset && bodyOffset + bodyLength == l[2]) {
      // laid out in a row (the first variant): one slice, copied once on its way to the socket
      return BufferInternal.buffer(Unpooled.wrappedBuffer(data, l[0], l[1] + bodyLength + l[3]));
    }
    return BufferInternal.buffer(Unpooled.wrappedUnmodifiableBuffer(
        Unpooled.wrappedBuffer(data, l[0], l[1]), Unpooled.wrappedBuffer(data, bodyOffset, bodyLength), Unpooled.wrappedBuffer(data, l[2], l[3])));
  }

  /** The {@code expo-signature} value of key {@code key} of the ring; null when the entry has none. */
  public AsciiString signature(int key) {
    return signatures[key];
  }

  /** The {@code expo-signature} value of the ring's first key; null when unsigned or the app has no key. */
  public AsciiString signature() {
    return signatures.length == 0 ? null : signatures[0];
  }

  /** Bytes held: the body once, and the heads and tails of its variants. */
  public int bytes() {
    return data.length;
  }

  /** Equal when they serve the same bytes for the same entry. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Prepared)) {
      return false;
    }
    Prepared p = (Prepared) o;
    return directive == p.directive && Objects.equals(entryId, p.entryId) && Objects.equals(groupId, p.groupId)
        && Arrays.equals(data, p.data) && Arrays.deepEquals(layout, p.layout);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(data);
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

  /** A multipart variant's bytes before the body: the first part's boundary and headers. */
  private static byte[] head(boolean directive, String boundary, String signature) {
    StringBuilder sb = new StringBuilder(200);
    sb.append("--").append(boundary).append("\r\n");
    sb.append("content-type: application/json\r\n");
    sb.append("content-disposition: inline; name=\"").append(directive ? "directive" : "manifest").append("\"\r\n");
    if (signature != null) {
      sb.append("expo-signature: ").append(signature).append("\r\n");
    }
    sb.append("\r\n");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A multipart variant's bytes after the body: the extensions part (manifests), the chain part, the end. */
  private static byte[] tail(boolean directive, String boundary, String chain) {
    StringBuilder sb = new StringBuilder(200 + (chain == null ? 0 : chain.length()));
    if (!directive) {
      sb.append("\r\n--").append(boundary).append("\r\n");
      sb.append("content-type: application/json\r\n");
      sb.append("content-disposition: inline; name=\"extensions\"\r\n");
      sb.append("\r\n").append(EXTENSIONS);
    }
    if (chain != null) {
      sb.append("\r\n--").append(boundary).append("\r\n");
      sb.append("content-type: application/x-pem-file\r\n");
      sb.append("content-disposition: inline; name=\"certificate_chain\"\r\n");
      sb.append("\r\n").append(chain);
    }
    sb.append("\r\n--").append(boundary).append("--\r\n");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The boundary for {@code body} with no certificate chain to check. */
  static String boundaryFor(byte[] body) {
    return boundaryFor(body, List.of());
  }

  /**
   * {@code updraft-} and 40 hex digits of the body's SHA-256: a token of 48 characters (RFC 2046 allows
   * 70), the same on every edge, and checked not to occur in the body, the extensions part or any key's
   * certificate chain.
   */
  static String boundaryFor(byte[] body, List<SigningKey> keys) {
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
    for (int n = 1; occursIn(candidate, text, keys); n++) {
      candidate = base + "-" + n;
    }
    return candidate;
  }

  private static boolean occursIn(String boundary, String body, List<SigningKey> keys) {
    if (body.contains(boundary)) {
      return true;
    }
    for (SigningKey k : keys) {
      if (k.chainPem() != null && k.chainPem().contains(boundary)) {
        return true;
      }
    }
    return false;
  }
}
