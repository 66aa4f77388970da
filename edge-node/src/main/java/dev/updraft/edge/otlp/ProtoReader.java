package dev.updraft.edge.otlp;

import java.nio.charset.StandardCharsets;

/**
 * A minimal protobuf wire-format reader over a byte range: tags, varints, fixed 32/64-bit values and
 * length-delimited fields (read as sub-readers or UTF-8 strings); any other wire type is refused. Every length is
 * checked against the range, so a hostile body fails with an {@link OtlpSyntaxException}, never reads outside it.
 * Not thread-safe (one per message being read).
 */
final class ProtoReader {
  static final int VARINT = 0;
  static final int I64 = 1;
  static final int LEN = 2;
  static final int I32 = 5;

  private final byte[] buf;
  private int pos;
  private final int end;
  private final int depth;

  ProtoReader(byte[] buf) {
    this(buf, 0, buf.length, 0);
  }

  private ProtoReader(byte[] buf, int from, int end, int depth) {
    this.buf = buf;
    this.pos = from;
    this.end = end;
    this.depth = depth;
  }

  boolean more() {
    return pos < end;
  }

  /** The next tag (field number << 3 | wire type). */
  int tag() throws OtlpSyntaxException {
    long t = varint();
    if (t <= 0 || t > Integer.MAX_VALUE || (t >>> 3) == 0) {
      throw new OtlpSyntaxException("protobuf: invalid tag " + t + " at byte " + pos);
    }
    return (int) t;
  }

  long varint() throws OtlpSyntaxException {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new OtlpSyntaxException("protobuf: truncated varint at byte " + pos);
      }
      byte b = buf[pos++];
      v |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new OtlpSyntaxException("protobuf: varint longer than 10 bytes at byte " + pos);
  }

  long fixed64() throws OtlpSyntaxException {
    need(8);
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (buf[pos + i] & 0xffL);
    }
    pos += 8;
    return v;
  }

  /** A length-delimited field as a reader of its bytes. */
  ProtoReader message() throws OtlpSyntaxException {
    if (depth >= 32) {
      throw new OtlpSyntaxException("protobuf: messages nested deeper than 32");
    }
    int len = length();
    ProtoReader r = new ProtoReader(buf, pos, pos + len, depth + 1);
    pos += len;
    return r;
  }

  String string() throws OtlpSyntaxException {
    int len = length();
    String s = new String(buf, pos, len, StandardCharsets.UTF_8);
    pos += len;
    return s;
  }

  /** Skips a field of wire type {@code tag & 7}. */
  void skip(int tag) throws OtlpSyntaxException {
    switch (tag & 7) {
      case VARINT -> varint();
      case I64 -> {
        need(8);
        pos += 8;
      }
      case LEN -> {
        int len = length(); // not pos += length(): that adds to pos as it was before the length's own bytes
        pos += len;
      }
      case I32 -> {
        need(4);
        pos += 4;
      }
      default -> throw new OtlpSyntaxException("protobuf: unsupported wire type " + (tag & 7) + " of field " + (tag >>> 3) + " at byte " + pos);
    }
  }

  private int length() throws OtlpSyntaxException {
    long len = varint();
    if (len < 0 || len > end - pos) {
      throw new OtlpSyntaxException("protobuf: a field of " + len + " bytes runs past its message's end (" + (end - pos) + " bytes left) at byte " + pos);
    }
    return (int) len;
  }

  private void need(int n) throws OtlpSyntaxException {
    if (end - pos < n) {
      throw new OtlpSyntaxException("protobuf: truncated fixed-width field at byte " + pos);
    }
  }
}
