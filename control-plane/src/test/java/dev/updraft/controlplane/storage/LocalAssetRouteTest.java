package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local asset route: types from the extension, immutable caching, gzip, and no way out of the directory. */
class LocalAssetRouteTest {
  Vertx vertx;
  HttpServer server;
  LocalAssetStorage storage;
  String base;
  final HttpClient http = HttpClient.newHttpClient();
  final byte[] js = "function hello() { return 'hello hello hello hello hello'; }\n".repeat(50).getBytes(StandardCharsets.UTF_8);
  String sha;

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    Files.writeString(dir.resolve("secret.txt"), "do not serve");
    storage = new LocalAssetStorage(dir.resolve("assets"), () -> base);
    Path f = dir.resolve("upload");
    Files.write(f, js);
    sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(js));
    storage.put("demo", sha, f, "md5", js.length, "application/javascript");
    Router router = Router.router(vertx);
    LocalAssetRoute.mount(vertx, router, storage);
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get();
    base = "http://127.0.0.1:" + server.actualPort();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  HttpResponse<byte[]> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void servesBytesWithTheTypeOfTheUrlExtensionNeverNegotiatingOnAccept() throws Exception {
    assertThat(storage.urls("demo").url(sha, null, "application/javascript")).isEqualTo(base + "/assets/demo/" + sha + ".js");
    HttpResponse<byte[]> r = get("/assets/demo/" + sha + ".js", "Accept", "image/png");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(js);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/javascript");
    assertThat(r.headers().firstValue("cache-control")).hasValue("public, max-age=31536000, immutable");
    assertThat(r.headers().firstValue("content-encoding")).isEmpty();
    HttpResponse<byte[]> png = get("/assets/demo/" + sha + ".png", "Accept", "application/javascript");
    assertThat(png.headers().firstValue("content-type")).hasValue("image/png");
  }

  @Test
  void neverServesTheEdgeImages() throws Exception {
    storage.edgeImages().write("newest", "pointer".getBytes(StandardCharsets.UTF_8));
    storage.edgeImages().write("image-00000001767225600000-0123abcd.sealed", "sealed".getBytes(StandardCharsets.UTF_8));
    for (String path : List.of("/assets/_edge-images/newest", "/assets/_edge-images/image-00000001767225600000-0123abcd.sealed",
        "/assets/%5Fedge-images/newest", "/assets/demo/..%2F_edge-images%2Fnewest")) {
      HttpResponse<byte[]> r = get(path);
      assertThat(r.statusCode()).as(path).isGreaterThanOrEqualTo(400).isLessThan(500);
      assertThat(new String(r.body(), StandardCharsets.UTF_8)).as(path).doesNotContain("pointer").doesNotContain("sealed");
    }
  }

  @Test
  void gzipsCompressibleTypesWhenTheClientAcceptsIt() throws Exception {
    HttpResponse<byte[]> gz = get("/assets/demo/" + sha + ".js", "Accept-Encoding", "br;q=1, gzip;q=0.5");
    assertThat(gz.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(gz.body().length).isLessThan(js.length);
    assertThat(new GZIPInputStream(new ByteArrayInputStream(gz.body())).readAllBytes()).isEqualTo(js);
    assertThat(get("/assets/demo/" + sha + ".js", "Accept-Encoding", "gzip;q=0").headers().firstValue("content-encoding")).isEmpty();
    assertThat(get("/assets/demo/" + sha + ".png", "Accept-Encoding", "gzip").headers().firstValue("content-encoding")).isEmpty();
    assertThat(LocalAssetRoute.acceptsGzip("deflate, *")).isTrue();
    assertThat(LocalAssetRoute.acceptsGzip("br")).isFalse();
  }

  @Test
  void onlyTheEncodingAClientKeepsGettingIsImmutableWhileBetterCopiesAreStillToCome(@TempDir Path tmp) throws Exception {
    String url = "/assets/demo/" + sha + ".js";
    HttpResponse<byte[]> early = get(url, "Accept-Encoding", "zstd, br, gzip");
    assertThat(early.headers().firstValue("content-encoding")).as("never identity for a client that takes gzip").hasValue("gzip");
    assertThat(early.headers().firstValue("cache-control")).as("zstd is still to come").hasValue("public, max-age=30");
    assertThat(get(url, "Accept-Encoding", "gzip").headers().firstValue("cache-control"))
        .as("gzip is what a gzip-only client keeps getting").hasValue("public, max-age=31536000, immutable");
    assertThat(get(url, "Accept-Encoding", "zstd").headers().firstValue("cache-control")).as("identity until the zstd copy exists")
        .hasValue("public, max-age=30");
    assertThat(get(url).headers().firstValue("cache-control")).hasValue("public, max-age=31536000, immutable");
    byte[] zstd = com.github.luben.zstd.Zstd.compress(js, 19);
    Path f = Files.write(tmp.resolve("zst"), zstd);
    storage.putVariant("demo", sha, "zstd", f, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(zstd)), "md5", zstd.length);
    HttpResponse<byte[]> stored = get(url, "Accept-Encoding", "zstd, br, gzip");
    assertThat(stored.headers().firstValue("content-encoding")).hasValue("zstd");
    assertThat(stored.headers().firstValue("cache-control")).hasValue("public, max-age=31536000, immutable");
    assertThat(com.github.luben.zstd.Zstd.decompress(stored.body(), js.length)).isEqualTo(js);
  }

  @Test
  void refusesEveryPathThatIsNotAStoredAddress() throws Exception {
    for (String p : new String[] {
      "/assets/demo/" + sha.substring(1) + ".js",
      "/assets/demo/..%2F..%2Fsecret.txt",
      "/assets/demo/%2e%2e/secret.txt",
      "/assets/other/" + sha + ".js",
      "/assets/demo/" + sha.toUpperCase() + ".js"
    }) {
      assertThat(get(p).statusCode()).as(p).isEqualTo(404);
    }
    // a raw request line with dot segments, which HttpClient would normalise
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.getOutputStream().write("GET /assets/demo/../../secret.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answer).doesNotContain("do not serve");
    }
  }
}
