package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updraft publish} refuses a metadata.json naming files outside {@code --dist} (.., absolute,
 * backslashes, symlinks) before it sends anything, and the CLI talks to an HTTPS control plane whose
 * certificate it trusts through {@code --cacert} / {@code UPDRAFT_CACERT}.
 */
class PublishSafetyTest {
  Vertx vertx;
  HttpServer server;
  final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  Path certFile;

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    KeyPair kp = g.generateKeyPair();
    Instant now = Instant.now();
    X500Name name = new X500Name("CN=127.0.0.1");
    var b = new JcaX509v3CertificateBuilder(name, BigInteger.ONE, Date.from(now.minusSeconds(60)), Date.from(now.plusSeconds(3600)), name, kp.getPublic());
    b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
    String certPem = pem(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    certFile = Files.writeString(dir.resolve("server.pem"), certPem);
    HttpServerOptions o =
        new HttpServerOptions()
            .setSsl(true)
            .setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(certPem)).setKeyValue(Buffer.buffer(pem(kp.getPrivate()))));
    server =
        vertx.createHttpServer(o)
            .requestHandler(
                req -> {
                  requests.add(req.method() + " " + req.path());
                  req.response().putHeader("content-type", "application/json").end(req.path().endsWith("/missing") ? "{\"missing\":[]}" : "{\"items\":[]}");
                })
            .listen(0, "127.0.0.1")
            .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  static String pem(Object o) throws Exception {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o);
    }
    return w.toString();
  }

  String server() {
    return "https://127.0.0.1:" + server.actualPort();
  }

  int run(Map<String, String> env, String... args) {
    out.reset();
    err.reset();
    return Cli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), ms -> {}, false);
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void talksToAnHttpsServerItTrustsThroughCacertAndRefusesOneItDoesNot() {
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t"), "apps", "list", "--server", server(), "--cacert", certFile.toString())).as(err()).isZero();
    assertThat(requests).containsExactly("GET /v1/apps");
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", server(), "UPDRAFT_CACERT", certFile.toString()), "apps", "list")).as(err()).isZero();
    assertThat(requests).hasSize(2);
    // the JVM trust store does not know this self-signed certificate
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t"), "apps", "list", "--server", server())).isEqualTo(1);
    assertThat(err()).startsWith("error: TLS handshake").contains("--cacert").doesNotContain("\tat ");
    assertThat(requests).hasSize(2);
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t"), "apps", "list", "--server", server(), "--cacert", certFile.resolveSibling("nope.pem").toString())).isEqualTo(2);
    assertThat(err()).contains("--cacert").contains("nope.pem");
  }

  @Test
  void refusesMetadataNamingFilesOutsideDistBeforeUploadingAnything(@TempDir Path dir) throws Exception {
    Path dist = Files.createDirectories(dir.resolve("dist"));
    Files.createDirectories(dist.resolve("bundles"));
    Files.writeString(dist.resolve("bundles/ios.js"), "console.log('ios')");
    Path outside = Files.writeString(dir.resolve("outside"), "SECRET");
    Files.createDirectories(dir.resolve("outdir"));
    Files.writeString(dir.resolve("outdir/x.png"), "SECRET");
    Files.createSymbolicLink(dist.resolve("linked.js"), outside);
    Files.createSymbolicLink(dist.resolve("linkdir"), dir.resolve("outdir"));
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("../outside", "has a .. segment");
    cases.put("bundles/../../outside", "has a .. segment");
    cases.put(outside.toString(), "absolute path");
    cases.put("..\\\\outside", "backslash");
    cases.put("linked.js", "symbolic link");
    cases.put("linkdir/x.png", "symbolic link");
    int refused = 0;
    for (Map.Entry<String, String> c : cases.entrySet()) {
      for (boolean asAsset : new boolean[] {false, true}) {
        String bundle = asAsset ? "bundles/ios.js" : c.getKey();
        String assets = asAsset ? "[{\"path\":\"" + c.getKey() + "\",\"ext\":\"png\"}]" : "[]";
        Files.writeString(dist.resolve("metadata.json"),
            "{\"version\":0,\"bundler\":\"metro\",\"fileMetadata\":{\"ios\":{\"bundle\":\"" + bundle + "\",\"assets\":" + assets + "}}}");
        int status = run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", server(), "UPDRAFT_CACERT", certFile.toString()),
            "publish", "--app", "demo", "--branch", "main", "--runtime-version", "1", "--dist", dist.toString());
        assertThat(status).as(c.getKey() + " " + err()).isEqualTo(1);
        assertThat(err()).as(c.getKey()).contains("metadata.json names").contains("outside").contains(c.getValue()).contains("refusing to upload");
        assertThat(err()).doesNotContain("SECRET");
        refused++;
      }
    }
    System.out.println("cli publish: " + refused + " metadata.json files naming paths outside --dist refused; requests sent: " + requests.size());
    assertThat(requests).as("nothing was sent to the server").isEmpty();
  }
}
