package dev.updraft.controlplane.patches;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.BrotliOutputStream;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.ZstdOutputStream;
import dev.updraft.common.AcceptEncoding;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pre-compressed copies of an asset, made once after a publish so that nothing is compressed for a
 * request: zstd (level 19, zstd-jni), brotli (quality 11, brotli4j) and gzip (level 9, the JDK). Each is
 * streamed file to file (bounded memory whatever the size). A copy that is not smaller than the asset is
 * dropped. When the brotli native library cannot load on this platform, brotli is skipped (logged once).
 * {@code fast} ({@code --asset-encoding fast}) uses zstd level 3, brotli quality 5 and gzip level 6 instead.
 * Stateless and thread-safe.
 */
final class Encodings {
  private static final Logger LOG = LoggerFactory.getLogger(Encodings.class);
  private static volatile Boolean brotli;

  private Encodings() {}

  /**
   * One encoded copy.
   *
   * @param file a temporary file the caller deletes
   */
  record Encoded(String encoding, Path file, String sha256Hex, String md5Hex, long size) {}

  /** The encodings {@link #encode} makes here (brotli only where its native library loads). */
  static List<String> made() {
    return brotliAvailable() ? List.of(AcceptEncoding.ZSTD, AcceptEncoding.BR, AcceptEncoding.GZIP)
        : List.of(AcceptEncoding.ZSTD, AcceptEncoding.GZIP);
  }

  /** The copies of {@code source} (of {@code size} bytes) worth keeping, smallest encoding first by preference. */
  static List<Encoded> encode(Path source, long size, Path tmpDir, boolean fast) throws IOException {
    List<Encoded> out = new ArrayList<>();
    for (String enc : made()) {
      Encoded e = encodeOne(source, enc, tmpDir, fast);
      if (e.size() < size) {
        out.add(e);
      } else {
        Files.deleteIfExists(e.file());
      }
    }
    return out;
  }

  static Encoded encodeOne(Path source, String encoding, Path tmpDir) throws IOException {
    return encodeOne(source, encoding, tmpDir, false);
  }

  static Encoded encodeOne(Path source, String encoding, Path tmpDir, boolean fast) throws IOException {
    Path tmp = Files.createTempFile(tmpDir, "encode-", "." + encoding + ".part");
    try {
      MessageDigest sha = digest("SHA-256");
      MessageDigest md5 = digest("MD5");
      try (InputStream in = Files.newInputStream(source);
          OutputStream file = Files.newOutputStream(tmp);
          OutputStream counted = new DigestOutputStream(new DigestOutputStream(file, sha), md5);
          OutputStream enc = encoder(encoding, counted, fast)) {
        in.transferTo(enc);
      }
      return new Encoded(encoding, tmp, HexFormat.of().formatHex(sha.digest()), HexFormat.of().formatHex(md5.digest()), Files.size(tmp));
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  private static OutputStream encoder(String encoding, OutputStream out, boolean fast) throws IOException {
    switch (encoding) {
      case AcceptEncoding.ZSTD:
        return new ZstdOutputStream(out, fast ? 3 : 19);
      case AcceptEncoding.BR:
        return new BrotliOutputStream(out, new Encoder.Parameters().setQuality(fast ? 5 : 11).setWindow(24));
      case AcceptEncoding.GZIP:
        return new GZIPOutputStream(out, 64 * 1024) {
          {
            def.setLevel(fast ? Deflater.DEFAULT_COMPRESSION : Deflater.BEST_COMPRESSION);
          }
        };
      default:
        throw new IllegalArgumentException("no encoder for encoding=" + encoding);
    }
  }

  /** Whether brotli4j's native library loads here. */
  static boolean brotliAvailable() {
    Boolean b = brotli;
    if (b == null) {
      try {
        Brotli4jLoader.ensureAvailability();
        b = true;
      } catch (Throwable t) {
        LOG.warn("brotli is not available on this platform ({}): launch assets are stored as zstd and gzip only", t.toString());
        b = false;
      }
      brotli = b;
    }
    return b;
  }

  static MessageDigest digest(String name) {
    try {
      return MessageDigest.getInstance(name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(name + " missing from this JVM", e);
    }
  }
}
