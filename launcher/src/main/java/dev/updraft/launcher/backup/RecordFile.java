package dev.updraft.launcher.backup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * One partition's records in a backup: a gzip stream of a header line {@code updraft-records-v1\n}, then per
 * record the byte {@code 1}, its offset and timestamp (two big-endian int64), its key and value (int32 length,
 * -1 for null, then the bytes) and its headers (int32 count, then per header an int32-length UTF-8 name and a
 * value as above); then the byte {@code 0} and the record count (int64), so that a cut-off file is refused
 * rather than read as a shorter log. The bytes of keys and values are Kafka's, untouched.
 *
 * <p>Not thread-safe: one writer or one reader per file.
 */
final class RecordFile {
  static final String HEADER = "updraft-records-v1\n";
  private static final int MAX_FIELD = 64 * 1024 * 1024;

  private RecordFile() {}

  /** One record as read from Kafka or from a file. */
  record Rec(long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
    Rec {
      headers = List.copyOf(headers);
    }
  }

  /** A record header ({@code value} may be null). */
  record Header(String key, byte[] value) {}

  /** Writes a file from its start. */
  static final class Writer implements Closeable {
    private final Path file;
    private final DataOutputStream out;
    private long count;

    Writer(Path file) throws IOException {
      this.file = file;
      OutputStream raw = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      this.out = new DataOutputStream(new BufferedOutputStream(new GZIPOutputStream(raw, 64 * 1024), 64 * 1024));
      out.write(HEADER.getBytes(StandardCharsets.US_ASCII));
    }

    void write(Rec r) throws IOException {
      out.writeByte(1);
      out.writeLong(r.offset());
      out.writeLong(r.timestamp());
      bytes(r.key());
      bytes(r.value());
      out.writeInt(r.headers().size());
      for (Header h : r.headers()) {
        bytes(h.key().getBytes(StandardCharsets.UTF_8));
        bytes(h.value());
      }
      count++;
    }

    long count() {
      return count;
    }

    private void bytes(byte[] b) throws IOException {
      if (b == null) {
        out.writeInt(-1);
      } else {
        out.writeInt(b.length);
        out.write(b);
      }
    }

    /** Ends the file (the end mark and the count) and closes it. */
    @Override
    public void close() throws IOException {
      out.writeByte(0);
      out.writeLong(count);
      out.close();
    }

    Path file() {
      return file;
    }
  }

  /** Reads a file record by record; {@link #next} returns null after the last one, once the end mark checked out. */
  static final class Reader implements Closeable {
    private final Path file;
    private final DataInputStream in;
    private long count;
    private boolean ended;

    Reader(Path file) throws IOException {
      this.file = file;
      InputStream raw = Files.newInputStream(file);
      this.in = new DataInputStream(new BufferedInputStream(new GZIPInputStream(raw, 64 * 1024), 64 * 1024));
      byte[] header = new byte[HEADER.length()];
      try {
        in.readFully(header);
      } catch (EOFException e) {
        in.close();
        throw new IOException("file=" + file + " is not an Updraft record file (too short)", e);
      }
      if (!Arrays.equals(header, HEADER.getBytes(StandardCharsets.US_ASCII))) {
        in.close();
        throw new IOException("file=" + file + " is not an Updraft record file (its first line is not " + HEADER.trim() + ")");
      }
    }

    Rec next() throws IOException {
      if (ended) {
        return null;
      }
      try {
        int mark = in.readByte();
        if (mark == 0) {
          long declared = in.readLong();
          if (declared != count) {
            throw new IOException("file=" + file + " says it holds " + declared + " records but " + count + " were read");
          }
          ended = true;
          return null;
        }
        if (mark != 1) {
          throw new IOException("file=" + file + " is corrupt after record " + count + " (mark " + mark + ")");
        }
        long offset = in.readLong();
        long timestamp = in.readLong();
        byte[] key = bytes();
        byte[] value = bytes();
        int n = in.readInt();
        if (n < 0 || n > 10_000) {
          throw new IOException("file=" + file + " is corrupt at record " + count + " (" + n + " headers)");
        }
        List<Header> headers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          byte[] k = bytes();
          if (k == null) {
            throw new IOException("file=" + file + " is corrupt at record " + count + " (a header without a name)");
          }
          headers.add(new Header(new String(k, StandardCharsets.UTF_8), bytes()));
        }
        count++;
        return new Rec(offset, timestamp, key, value, headers);
      } catch (EOFException e) {
        throw new IOException("file=" + file + " ends after " + count + " records without its end mark (cut off)", e);
      }
    }

    private byte[] bytes() throws IOException {
      int n = in.readInt();
      if (n == -1) {
        return null;
      }
      if (n < 0 || n > MAX_FIELD) {
        throw new IOException("file=" + file + " is corrupt at record " + count + " (a field of " + n + " bytes)");
      }
      byte[] b = new byte[n];
      in.readFully(b);
      return b;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
