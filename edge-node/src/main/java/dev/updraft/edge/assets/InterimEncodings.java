package dev.updraft.edge.assets;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import dev.updraft.common.AcceptEncoding;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encoded copies of a launch asset made by the edge itself, for the seconds between a publish and the
 * control plane's stored copies ({@code launch-asset.stored} with zstd, br and gzip, made at the best levels
 * off the request path): the first device that asks gets compressed bytes, never the identity bundle.
 * One copy per launch asset and encoding, made once (concurrent requests wait for the same one) at fast
 * levels ({@link #ZSTD_LEVEL}, {@link #BR_QUALITY}, {@link #GZIP_LEVEL}) on one worker thread of its own,
 * never an event loop, from the identity bytes fetched from storage and checked against their SHA-256.
 * Held in memory up to {@code maxBytes} in all (least recently used dropped first); a launch asset above
 * {@link #MAX_SOURCE_BYTES} gets none. These bytes are interim: a later stored copy replaces them, so the
 * route never marks them immutable. Thread-safe.
 */
final class InterimEncodings {
  private static final Logger LOG = LoggerFactory.getLogger(InterimEncodings.class);
  static final int ZSTD_LEVEL = 3;
  static final int BR_QUALITY = 5;
  static final int GZIP_LEVEL = 6;
  /** Larger launch assets are not encoded on the fly (identity until the stored copies exist). */
  static final long MAX_SOURCE_BYTES = 32L << 20;
  /** A copy that is not smaller than the asset: identity is served instead. */
  static final Buffer NOT_SMALLER = Buffer.buffer(0);
  private static volatile Boolean brotli;

  private final HttpClientAgent upstream;
  /** Where every fetch is started, so that its response handlers are set within the event loop's own turn. */
  private final Context context;
  private final WorkerExecutor worker;
  private final long maxBytes;
  private final AssetMetrics metrics;
  /** sha/encoding → copy (pending or made), least recently used first. Guarded by itself. */
  private final LinkedHashMap<String, Future<Buffer>> copies = new LinkedHashMap<>(16, 0.75f, true);
  private long held;

  InterimEncodings(Vertx vertx, HttpClientAgent upstream, long maxBytes, AssetMetrics metrics) {
    this.upstream = upstream;
    this.context = vertx.getOrCreateContext();
    this.worker = vertx.createSharedWorkerExecutor("updraft-edge-interim-encode", 1);
    this.maxBytes = maxBytes;
    this.metrics = metrics;
  }

  /** The encodings this edge can make, in the server's order. */
  static List<String> offered() {
    return brotliAvailable() ? List.of(AcceptEncoding.ZSTD, AcceptEncoding.BR, AcceptEncoding.GZIP, AcceptEncoding.IDENTITY)
        : List.of(AcceptEncoding.ZSTD, AcceptEncoding.GZIP, AcceptEncoding.IDENTITY);
  }

  /** The encoding to make for {@code acceptEncoding}, or null when the client takes none of them (identity then). */
  static String choose(String acceptEncoding) {
    String e = AcceptEncoding.choose(acceptEncoding, offered());
    return e == null || e.equals(AcceptEncoding.IDENTITY) ? null : e;
  }

  /**
   * The interim copy of {@code asset} in {@code encoding}: its bytes, {@link #NOT_SMALLER} when encoding does
   * not shrink it, or a failed future (storage unreachable, too large, bytes not matching their hash).
   */
  Future<Buffer> copy(LaunchAssetStored asset, String encoding) {
    AssetVariant identity = asset.variant(AssetVariant.IDENTITY);
    if (identity == null || asset.size() < 0 || asset.size() > MAX_SOURCE_BYTES) {
      metrics.interim("too-large");
      return Future.failedFuture("launch asset sha256=" + asset.sha256() + " of " + asset.size() + " bytes: no interim copy above "
          + MAX_SOURCE_BYTES + " bytes");
    }
    String key = asset.sha256() + "/" + encoding;
    Promise<Buffer> made;
    synchronized (copies) {
      Future<Buffer> f = copies.get(key);
      if (f != null) {
        return f;
      }
      made = Promise.promise();
      copies.put(key, made.future());
    }
    long t0 = System.nanoTime();
    // started on the event loop: a caller on another thread (a test, a worker) could otherwise attach the body
    // handler after the response's bytes had arrived, and the copy would never complete
    Promise<Buffer> fetched = Promise.promise();
    context.runOnContext(v -> fetch(identity.url(), asset.size()).onComplete(fetched));
    fetched.future()
        .compose(src -> worker.<Buffer>executeBlocking(() -> encodeChecked(src, asset.sha256(), encoding), false))
        .onComplete(ar -> {
          if (ar.failed()) {
            synchronized (copies) {
              copies.remove(key); // the next request tries again
            }
            metrics.interim("failed");
            LOG.warn("no interim {} copy of launch asset {}: {}", encoding, asset.sha256(), ar.cause().getMessage());
            made.fail(ar.cause());
            return;
          }
          Buffer b = ar.result();
          metrics.interim(b == NOT_SMALLER ? "not-smaller" : "made");
          LOG.info("interim {} copy of launch asset {}: {} -> {} bytes in {} ms", encoding, asset.sha256(), asset.size(), b.length(),
              (System.nanoTime() - t0) / 1_000_000);
          synchronized (copies) {
            held += b.length();
            evict();
          }
          made.complete(b);
        });
    return made.future();
  }

  /** Drops made copies, least recently used first, until what is held fits. Caller holds the lock. */
  private void evict() {
    Iterator<Map.Entry<String, Future<Buffer>>> it = copies.entrySet().iterator();
    while (held > maxBytes && it.hasNext()) {
      Future<Buffer> f = it.next().getValue();
      if (f.succeeded()) {
        held -= f.result().length();
        it.remove();
      }
    }
  }

  /** Bytes held in made copies. */
  long held() {
    synchronized (copies) {
      return held;
    }
  }

  private Future<Buffer> fetch(String url, long size) {
    return upstream
        .request(new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url).putHeader("accept-encoding", "identity"))
        .compose(req -> req.send().compose((HttpClientResponse r) -> {
          String len = r.getHeader("content-length");
          if (r.statusCode() != 200 || len == null || !len.equals(Long.toString(size))) {
            r.end();
            return Future.failedFuture("storage answered HTTP " + r.statusCode() + " with content-length " + len + " (" + size + " expected)");
          }
          return r.body();
        }));
  }

  /** Encodes {@code src} after checking it is the asset; {@link #NOT_SMALLER} when the copy would not be smaller. Worker thread. */
  static Buffer encodeChecked(Buffer src, String sha256Hex, String encoding) throws IOException {
    byte[] in = src.getBytes();
    String got = HexFormat.of().formatHex(sha256().digest(in));
    if (!got.equals(sha256Hex)) {
      throw new IOException("storage sent bytes with sha256=" + got + " for launch asset " + sha256Hex);
    }
    byte[] out = encode(in, encoding);
    return out.length < in.length ? Buffer.buffer(out) : NOT_SMALLER;
  }

  /** {@code in} in {@code encoding} at the interim (fast) level. */
  static byte[] encode(byte[] in, String encoding) throws IOException {
    switch (encoding) {
      case AcceptEncoding.ZSTD:
        return Zstd.compress(in, ZSTD_LEVEL);
      case AcceptEncoding.BR:
        if (!brotliAvailable()) {
          throw new IOException("brotli's native library does not load on this platform");
        }
        return Encoder.compress(in, new Encoder.Parameters().setQuality(BR_QUALITY));
      case AcceptEncoding.GZIP:
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(in.length / 2);
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes, 64 * 1024) {
          {
            def.setLevel(GZIP_LEVEL);
          }
        }) {
          gz.write(in);
        }
        return bytes.toByteArray();
      default:
        throw new IllegalArgumentException("no interim encoder for encoding=" + encoding);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
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
        LOG.warn("brotli is not available on this platform ({}): interim copies are zstd and gzip only", t.toString());
        b = false;
      }
      brotli = b;
    }
    return b;
  }

  void close() {
    worker.close();
  }
}
