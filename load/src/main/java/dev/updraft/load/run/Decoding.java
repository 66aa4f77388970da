package dev.updraft.load.run;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.Decoder;
import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import com.aayushatharva.brotli4j.decoder.DirectDecompress;
import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

/** A downloaded asset's bytes decoded by its {@code content-encoding} (identity, gzip, deflate, br, zstd), as a client does. */
final class Decoding {
  private Decoding() {}

  static byte[] decode(String encoding, byte[] body) throws IOException {
    String e = encoding == null ? "identity" : encoding.trim().toLowerCase(Locale.ROOT);
    switch (e) {
      case "":
      case "identity":
        return body;
      case "gzip":
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
          return in.readAllBytes();
        }
      case "deflate":
        try (InflaterInputStream in = new InflaterInputStream(new ByteArrayInputStream(body))) {
          return in.readAllBytes();
        }
      case "br":
        Brotli4jLoader.ensureAvailability();
        DirectDecompress d = Decoder.decompress(body);
        if (d.getResultStatus() != DecoderJNI.Status.DONE) {
          throw new IOException("brotli stream ended with status " + d.getResultStatus() + " after " + body.length + " bytes");
        }
        return d.getDecompressedData();
      case "zstd":
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(body))) {
          return in.readAllBytes();
        }
      default:
        throw new IOException("unknown content-encoding " + encoding);
    }
  }
}
