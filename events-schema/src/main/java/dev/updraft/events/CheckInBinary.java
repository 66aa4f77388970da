package dev.updraft.events;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The compact wire form of a {@link CheckIn}: the fields in the record's order, without names. Several
 * times smaller and cheaper to write and read than the JSON (no names, no escaping, no parser), which the
 * telemetry topic still holds from older edges: {@link CheckInCodec#decode} reads both, telling them apart
 * by the first byte.
 *
 * <p>Layout: {@link #MAGIC} (never the first byte of UTF-8 text, so never of a JSON record), the layout
 * version ({@link #LAYOUT}), then {@code v} as a varint, then each field in declaration order: a string as
 * a varint of its UTF-8 length plus one (0 for null) and the bytes; a list as a varint count and its
 * strings; {@code inBranchRollout} and whether {@code rolloutBucket} is present as one flags byte, the
 * bucket then as a varint; {@code atEpochMillis} as a zig-zag varint. A later layout only appends fields
 * and raises {@link #LAYOUT}; a reader refuses a layout newer than its own (the record becomes a reject,
 * not a silently wrong row). Layout 2 appended {@code keyId}; a layout 1 record decodes with none. Layout 3 appended
 * {@code addressBucket}; a layout 1 or 2 record decodes with none.
 *
 * <p>{@link #encode} reuses the instance's buffer: not thread-safe (one instance per sender thread).
 * {@link #decode} is static and thread-safe.
 */
public final class CheckInBinary {
  /** The first byte of every compact record: 0xC1 never occurs in UTF-8. */
  public static final byte MAGIC = (byte) 0xC1;
  /** The layout this build writes and the newest it reads. */
  public static final int LAYOUT = 3;

  private byte[] buf = new byte[512];
  private int len;

  /** The compact bytes of {@code c} (a fresh array; the working buffer is kept for the next call). */
  public byte[] encode(CheckIn c) {
    len = 0;
    put(MAGIC);
    put((byte) LAYOUT);
    varint(c.v());
    string(c.checkInId());
    string(c.appId());
    string(c.platform());
    string(c.runtimeVersion());
    string(c.channel());
    string(c.clientId());
    string(c.currentUpdateId());
    string(c.embeddedUpdateId());
    list(c.failedUpdateIds());
    string(c.outcome());
    string(c.reason());
    string(c.branch());
    put((byte) ((c.inBranchRollout() ? 1 : 0) | (c.rolloutBucket() != null ? 2 : 0)));
    if (c.rolloutBucket() != null) {
      varint(c.rolloutBucket() & 0xFFFFFFFFL);
    }
    string(c.servedUpdateId());
    string(c.servedGroupId());
    string(c.fatalError());
    long t = c.atEpochMillis();
    varint((t << 1) ^ (t >> 63));
    string(c.edgeId());
    list(c.skippedUpdateIds());
    string(c.keyId()); // layout 2
    string(c.addressBucket()); // layout 3
    return Arrays.copyOf(buf, len);
  }

  /** Whether {@code bytes} is a compact record (else it is JSON, or nothing). */
  public static boolean isCompact(byte[] bytes) {
    return bytes != null && bytes.length > 0 && bytes[0] == MAGIC;
  }

  /**
   * Reads a compact record.
   *
   * @throws IOException when it is cut short, malformed, or of a newer layout
   */
  public static CheckIn decode(byte[] bytes) throws IOException {
    Reader r = new Reader(bytes);
    if (r.u8() != (MAGIC & 0xFF)) {
      throw new IOException("not a compact check-in record (first byte is not 0xC1)");
    }
    int layout = r.u8();
    if (layout < 1 || layout > LAYOUT) {
      throw new IOException("compact check-in layout " + layout + " is not known to this build (newest known: " + LAYOUT + ")");
    }
    CheckIn.Builder b = CheckIn.builder().v((int) r.varint());
    b.checkInId(r.string()).appId(r.string()).platform(r.string()).runtimeVersion(r.string()).channel(r.string())
        .clientId(r.string()).currentUpdateId(r.string()).embeddedUpdateId(r.string()).failedUpdateIds(r.list())
        .outcome(r.string()).reason(r.string()).branch(r.string());
    int flags = r.u8();
    b.inBranchRollout((flags & 1) != 0);
    b.rolloutBucket((flags & 2) != 0 ? (int) r.varint() : null);
    b.servedUpdateId(r.string()).servedGroupId(r.string()).fatalError(r.string());
    long z = r.varint();
    b.atEpochMillis((z >>> 1) ^ -(z & 1));
    b.edgeId(r.string()).skippedUpdateIds(r.list());
    if (layout >= 2) {
      b.keyId(r.string());
    }
    if (layout >= 3) {
      b.addressBucket(r.string());
    }
    return b.build();
  }

  private void string(String s) {
    if (s == null) {
      varint(0);
      return;
    }
    int n = s.length();
    ensure(5 + 3 * n);
    // ids and names are ASCII and short: one pass writes the chars behind a one-byte length (n < 127) and
    // stops at the first char that is not ASCII; only then is the string encoded as UTF-8 instead
    if (n < 127) {
      byte[] b = buf;
      int at = len + 1;
      int i = 0;
      while (i < n) {
        char ch = s.charAt(i);
        if (ch >= 0x80) {
          break;
        }
        b[at + i] = (byte) ch;
        i++;
      }
      if (i == n) {
        b[len] = (byte) (n + 1);
        len = at + n;
        return;
      }
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    varint(utf8.length + 1L);
    System.arraycopy(utf8, 0, buf, len, utf8.length);
    len += utf8.length;
  }

  private void list(List<String> ids) {
    varint(ids.size());
    for (String id : ids) {
      string(id);
    }
  }

  private void varint(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[len++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[len++] = (byte) v;
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

  /** Reads the fields of one record, failing with the position where it went wrong. */
  private static final class Reader {
    private final byte[] b;
    private int at;

    Reader(byte[] b) {
      this.b = b;
    }

    int u8() throws IOException {
      if (at >= b.length) {
        throw new IOException("compact check-in record cut short at byte " + at + " of " + b.length);
      }
      return b[at++] & 0xFF;
    }

    long varint() throws IOException {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int x = u8();
        v |= (long) (x & 0x7F) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw new IOException("compact check-in record: varint longer than 10 bytes at byte " + at);
    }

    String string() throws IOException {
      long n = varint();
      if (n == 0) {
        return null;
      }
      long size = n - 1;
      if (size > b.length - at) {
        throw new IOException("compact check-in record cut short: a string of " + size + " bytes at byte " + at + " of " + b.length);
      }
      String s = new String(b, at, (int) size, StandardCharsets.UTF_8);
      at += (int) size;
      return s;
    }

    List<String> list() throws IOException {
      long n = varint();
      if (n > b.length - at) {
        throw new IOException("compact check-in record cut short: a list of " + n + " entries at byte " + at + " of " + b.length);
      }
      List<String> out = new ArrayList<>((int) n);
      for (long i = 0; i < n; i++) {
        String s = string();
        if (s == null) {
          throw new IOException("compact check-in record: a null entry in a list at byte " + at);
        }
        out.add(s);
      }
      return out;
    }
  }
}
