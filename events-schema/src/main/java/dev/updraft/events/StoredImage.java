package dev.updraft.events;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * An edge's durable image (under its {@code --data-dir}, or written by the control plane to the asset storage,
 * sealed by {@link ImageSeal}): what it folded, as the records it folded them from, and where in
 * {@code updraft.events} that leaves it. An edge started from it builds the same image as the edge that
 * wrote it (the snapshot records go through {@link dev.updraft.events.SnapshotSet} as when they were read
 * from {@code updraft.snapshots}, the event records through the same fold), and reads the events topic
 * from {@link #nextOffsets()} on.
 *
 * <p>The file format, version {@value #VERSION}, big-endian:
 *
 * <pre>
 * magic          8 bytes  "UPDRAFTI"
 * version        int32    1
 * writtenAt      int64    epoch milliseconds when it was written
 * heardAt        int64    epoch milliseconds when the edge last heard from the log (the image's age counts from it)
 * topic          text     the events topic (int32 length + UTF-8)
 * offsets        int32 n, then n × (partition int32, next offset int64)
 * snapshots      int32 n, then n × (key text, value bytes (int32 length + bytes))
 * events         int32 n, then n × (partition int32, offset int64, key bytes or -1, value bytes or -1)
 * crc32c         int64    CRC-32C of every byte before it
 * </pre>
 *
 * A released version is never changed: a new field means a new version, and a reader of version N reads
 * every version up to N (golden files in the tests). A file of an unknown version, a wrong magic or a
 * checksum that does not match is not used: {@link #read} says why and the edge starts from Kafka. Immutable.
 *
 * @param writtenAtMillis when the file was written
 * @param heardAtMillis when the edge that wrote it last heard from the log
 * @param topic the events topic its offsets are of
 * @param nextOffsets by partition: the offset of the first record the image does not hold
 * @param snapshotRecords the latest record of each key of {@code updraft.snapshots} the image started from, by key
 * @param events the event records folded after those snapshots, in the order they were folded
 */
public record StoredImage(
    long writtenAtMillis, long heardAtMillis, String topic, Map<Integer, Long> nextOffsets,
    Map<String, byte[]> snapshotRecords, List<EventRecord> events) {

  /** The format this build writes and the newest it reads. */
  public static final int VERSION = 1;
  /** The file's name under {@code --data-dir}. */
  public static final String FILE_NAME = "edge-image.bin";
  private static final byte[] MAGIC = "UPDRAFTI".getBytes(StandardCharsets.US_ASCII);
  /** Bounds a length read from a file, so a damaged one cannot ask for a huge array. */
  private static final int MAX_FIELD_BYTES = 256 << 20;

  public StoredImage {
    nextOffsets = Map.copyOf(nextOffsets);
    snapshotRecords = java.util.Collections.unmodifiableMap(new TreeMap<>(snapshotRecords));
    events = List.copyOf(events);
  }

  /** One record of the events topic; key and value nullable as in Kafka. */
  public record EventRecord(int partition, long offset, byte[] key, byte[] value) {
    @Override
    public boolean equals(Object o) {
      return o instanceof EventRecord r && r.partition == partition && r.offset == offset && Arrays.equals(r.key, key)
          && Arrays.equals(r.value, value);
    }

    @Override
    public int hashCode() {
      return 31 * Integer.hashCode(partition) + Long.hashCode(offset);
    }

    @Override
    public String toString() {
      return "EventRecord[partition=" + partition + ", offset=" + offset + "]";
    }
  }

  /** What {@link #read} found. */
  public sealed interface Read {
    /** No file: nothing was stored yet. */
    record Absent() implements Read {}

    /** A file that can be used. */
    record Loaded(StoredImage image) implements Read {}

    /**
     * A file that cannot be used.
     *
     * @param reason {@code unknown-version} or {@code corrupt}
     */
    record Unusable(String reason, String detail) implements Read {}
  }

  /** Reads the file at {@code file}; I/O failures other than its absence are {@link Read.Unusable} too. */
  public static Read read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new Read.Absent();
    } catch (IOException e) {
      return new Read.Unusable("corrupt", "cannot read " + file + ": " + e);
    }
    return decode(bytes);
  }

  /** Decodes a file's bytes. */
  public static Read decode(byte[] bytes) {
    if (bytes.length < MAGIC.length + 4 + 8 || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      return new Read.Unusable("corrupt", "not an edge image (" + bytes.length + " bytes, no UPDRAFTI header)");
    }
    int version = ByteBuffer.wrap(bytes, MAGIC.length, 4).getInt();
    if (version < 1 || version > VERSION) {
      return new Read.Unusable("unknown-version", "format version " + version + " (this edge reads 1.." + VERSION + ")");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 8);
    long stored = ByteBuffer.wrap(bytes, bytes.length - 8, 8).getLong();
    if (stored != crc.getValue()) {
      return new Read.Unusable("corrupt", "checksum mismatch: stored " + Long.toHexString(stored) + ", computed "
          + Long.toHexString(crc.getValue()) + " over " + (bytes.length - 8) + " bytes");
    }
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes, MAGIC.length + 4, bytes.length - MAGIC.length - 12))) {
      long writtenAt = in.readLong();
      long heardAt = in.readLong();
      String topic = new String(bytesOf(in, false), StandardCharsets.UTF_8);
      Map<Integer, Long> offsets = new TreeMap<>();
      for (int i = 0, n = count(in); i < n; i++) {
        offsets.put(in.readInt(), in.readLong());
      }
      Map<String, byte[]> snapshots = new TreeMap<>();
      for (int i = 0, n = count(in); i < n; i++) {
        snapshots.put(new String(bytesOf(in, false), StandardCharsets.UTF_8), bytesOf(in, false));
      }
      List<EventRecord> events = new ArrayList<>();
      for (int i = 0, n = count(in); i < n; i++) {
        events.add(new EventRecord(in.readInt(), in.readLong(), bytesOf(in, true), bytesOf(in, true)));
      }
      if (in.available() > 0) {
        return new Read.Unusable("corrupt", in.available() + " bytes after the last record");
      }
      return new Read.Loaded(new StoredImage(writtenAt, heardAt, topic, offsets, snapshots, events));
    } catch (EOFException e) {
      return new Read.Unusable("corrupt", "the file ends inside a record");
    } catch (IOException | IllegalArgumentException e) {
      return new Read.Unusable("corrupt", e.getMessage());
    }
  }

  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IllegalArgumentException("a count of " + n + " with " + in.available() + " bytes left");
    }
    return n;
  }

  private static byte[] bytesOf(DataInputStream in, boolean nullable) throws IOException {
    int n = in.readInt();
    if (n == -1 && nullable) {
      return null;
    }
    if (n < 0 || n > MAX_FIELD_BYTES || n > in.available()) {
      throw new IllegalArgumentException("a field of " + n + " bytes with " + in.available() + " bytes left");
    }
    return in.readNBytes(n);
  }

  /** The file's bytes. */
  public byte[] encode() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e);
    }
    return out.toByteArray();
  }

  private void writeTo(OutputStream sink) throws IOException {
    CRC32C crc = new CRC32C();
    DataOutputStream out = new DataOutputStream(new java.util.zip.CheckedOutputStream(sink, crc));
    out.write(MAGIC);
    out.writeInt(VERSION);
    out.writeLong(writtenAtMillis);
    out.writeLong(heardAtMillis);
    writeBytes(out, topic.getBytes(StandardCharsets.UTF_8));
    out.writeInt(nextOffsets.size());
    for (Map.Entry<Integer, Long> e : new TreeMap<>(nextOffsets).entrySet()) {
      out.writeInt(e.getKey());
      out.writeLong(e.getValue());
    }
    out.writeInt(snapshotRecords.size());
    for (Map.Entry<String, byte[]> e : snapshotRecords.entrySet()) {
      writeBytes(out, e.getKey().getBytes(StandardCharsets.UTF_8));
      writeBytes(out, e.getValue());
    }
    out.writeInt(events.size());
    for (EventRecord r : events) {
      out.writeInt(r.partition());
      out.writeLong(r.offset());
      writeBytes(out, r.key());
      writeBytes(out, r.value());
    }
    out.flush();
    new DataOutputStream(sink).writeLong(crc.getValue());
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  /**
   * Writes the file atomically: to a temporary file beside it, forced to the disk, then renamed over it (and
   * the directory forced), so a reader finds the previous file or this one, never a part.
   */
  public void write(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      OutputStream out = new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(ch), 1 << 16);
      writeTo(out);
      out.flush();
      ch.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // some file systems cannot open a directory; the rename is then as durable as they make it
    }
  }
}
