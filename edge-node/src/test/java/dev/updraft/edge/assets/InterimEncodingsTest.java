package dev.updraft.edge.assets;

import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.decoder.Decoder;
import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import com.github.luben.zstd.Zstd;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The edge's interim copies against a real HTTP server standing in for storage (loopback, port 0). */
class InterimEncodingsTest {
  Vertx vertx;
  HttpServer storage;
  HttpClientAgent client;
  final Map<String, byte[]> objects = new ConcurrentHashMap<>();
  final AtomicInteger gets = new AtomicInteger();
  SimpleMeterRegistry registry;
  InterimEncodings interim;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    storage = vertx.createHttpServer().requestHandler(req -> {
      gets.incrementAndGet();
      byte[] b = objects.get(req.path());
      if (b == null) {
        req.response().setStatusCode(404).end();
      } else {
        req.response().end(Buffer.buffer(b));
      }
    }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    client = vertx.createHttpClient();
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void stop() throws Exception {
    if (interim != null) {
      interim.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  InterimEncodings interim(long maxBytes) {
    interim = new InterimEncodings(vertx, client, maxBytes, new AssetMetrics(registry));
    return interim;
  }

  LaunchAssetStored stored(String name, byte[] bytes) throws Exception {
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    objects.put("/" + name, bytes);
    String url = "http://127.0.0.1:" + storage.actualPort() + "/" + name;
    return new LaunchAssetStored(sha, "application/javascript", bytes.length, List.of(new AssetVariant(AssetVariant.IDENTITY, sha, bytes.length, url)));
  }

  static byte[] javascriptLike(int size, long seed) {
    StringBuilder b = new StringBuilder(size + 64);
    Random r = new Random(seed);
    while (b.length() < size) {
      b.append("function f").append(r.nextInt(5000)).append("(a,b){return a+b*").append(r.nextInt(100)).append(";}\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void concurrentRequestsShareOneCopyThatDecodesToTheAsset() throws Exception {
    byte[] js = javascriptLike(300_000, System.nanoTime());
    LaunchAssetStored asset = stored("bundle", js);
    InterimEncodings i = interim(64 << 20);
    List<Future<Buffer>> all = new ArrayList<>();
    for (int n = 0; n < 8; n++) {
      all.add(i.copy(asset, "zstd"));
    }
    Buffer zstd = all.get(0).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    for (Future<Buffer> f : all) {
      assertThat(f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)).isSameAs(zstd);
    }
    assertThat(gets.get()).as("one fetch from storage for 8 requests").isEqualTo(1);
    assertThat(zstd.length()).isLessThan(js.length);
    assertThat(Zstd.decompress(zstd.getBytes(), js.length)).isEqualTo(js);

    byte[] br = i.copy(asset, "br").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).getBytes();
    assertThat(Decoder.decompress(br).getResultStatus()).isEqualTo(DecoderJNI.Status.DONE);
    assertThat(Decoder.decompress(br).getDecompressedData()).isEqualTo(js);
    byte[] gz = i.copy(asset, "gzip").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).getBytes();
    assertThat(new GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes()).isEqualTo(js);
    assertThat(i.held()).isEqualTo((long) zstd.length() + br.length + gz.length);
    assertThat(registry.get("updraft.edge.assets.interim").tag("outcome", "made").counter().count()).isEqualTo(3);
  }

  @Test
  void bytesThatDoNotMatchTheHashAreNeverEncodedAndTheNextRequestTriesAgain() throws Exception {
    byte[] js = javascriptLike(50_000, System.nanoTime());
    LaunchAssetStored asset = stored("bundle", js);
    byte[] damaged = js.clone();
    damaged[damaged.length / 2] ^= 1;
    objects.put("/bundle", damaged);
    InterimEncodings i = interim(64 << 20);
    Future<Buffer> bad = i.copy(asset, "gzip");
    assertThat(bad.transform(ar -> Future.succeededFuture(ar.cause())).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .hasMessageContaining("sha256=").hasMessageContaining(asset.sha256());
    objects.put("/bundle", js);
    byte[] gz = i.copy(asset, "gzip").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).getBytes();
    assertThat(new GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes()).isEqualTo(js);
    assertThat(gets.get()).isEqualTo(2);
    assertThat(registry.get("updraft.edge.assets.interim").tag("outcome", "failed").counter().count()).isEqualTo(1);
  }

  @Test
  void anAssetThatDoesNotShrinkIsServedAsItIs() throws Exception {
    byte[] random = new byte[20_000];
    new Random().nextBytes(random);
    LaunchAssetStored asset = stored("random", random);
    assertThat(interim(64 << 20).copy(asset, "zstd").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)).isSameAs(InterimEncodings.NOT_SMALLER);
  }

  @Test
  void copiesBeyondTheBoundAreDroppedLeastRecentlyUsedFirst() throws Exception {
    InterimEncodings i = interim(150_000);
    List<LaunchAssetStored> assets = new ArrayList<>();
    long seed = System.nanoTime();
    for (int n = 0; n < 6; n++) {
      assets.add(stored("b" + n, javascriptLike(400_000, seed + n)));
    }
    long largest = 0;
    for (LaunchAssetStored a : assets) {
      largest = Math.max(largest, i.copy(a, "gzip").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).length());
      assertThat(i.held()).as("held after %s", a.sha256()).isLessThanOrEqualTo(150_000 + largest);
    }
    int before = gets.get();
    i.copy(assets.get(assets.size() - 1), "gzip").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(gets.get()).as("the newest copy is still held").isEqualTo(before);
    i.copy(assets.get(0), "gzip").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(gets.get()).as("the oldest was dropped and is made again").isEqualTo(before + 1);
  }

  @Test
  void aClientIsOfferedWhatItTakesAmongZstdBrAndGzipElseIdentity() {
    assertThat(InterimEncodings.choose("zstd, br, gzip")).isEqualTo("zstd");
    assertThat(InterimEncodings.choose("br, gzip, deflate")).isEqualTo("br");
    assertThat(InterimEncodings.choose("gzip;q=1, zstd;q=0.5")).isEqualTo("gzip");
    assertThat(InterimEncodings.choose("deflate")).isNull();
    assertThat(InterimEncodings.choose(null)).isNull();
  }
}
