package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(Map<String, String> env, String... args) {
    return Cli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), ms -> {}, false);
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void usageErrorsExitWith2AndSayWhatIsMissing() {
    assertThat(run(Map.of())).isEqualTo(2);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("usage: updraft");
    assertThat(run(Map.of(), "frobnicate")).isEqualTo(2);
    assertThat(err()).contains("unknown command 'frobnicate'");
    assertThat(run(Map.of(), "apps", "list")).isEqualTo(2);
    assertThat(err()).contains("no token").contains("UPDRAFT_TOKEN");
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t"), "publish", "--app", "a")).isEqualTo(2);
    assertThat(err()).contains("--branch is required");
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t"), "channels", "--app", "a", "--chanel", "x")).isEqualTo(2);
    assertThat(err()).contains("unknown flag for channels: --chanel");
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t"), "rollout", "--app", "a", "--update", "g", "--finish", "--revert")).isEqualTo(2);
    assertThat(run(Map.of(), "help")).isZero();
  }

  @Test
  void aServerThatIsNotThereIsAOneLineFailure() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", "http://127.0.0.1:" + port), "apps", "list")).isEqualTo(1);
    assertThat(err()).startsWith("error: cannot connect to http://127.0.0.1:" + port).doesNotContain("\tat ");
    assertThat(err().strip().lines()).hasSize(1);
  }

  @Test
  void refusesToSendATokenOverPlainHttpToAnotherHostUnlessToldInsecure() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    // 192.0.2.1 is TEST-NET-1: never routed, so the refusal must come before any connection
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", "http://192.0.2.1:8080"), "apps", "list")).isEqualTo(2);
    assertThat(err()).contains("refusing to send a token").contains("plain http://").contains("192.0.2.1").contains("--insecure");
    err.reset();
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", "http://updraft.example.com"), "apps", "create", "demo")).isEqualTo(2);
    assertThat(err()).contains("refusing to send a token");
    err.reset();
    // loopback in any spelling is this machine: the CLI goes ahead (and finds nothing listening)
    for (String host : new String[] {"127.0.0.1", "localhost", "[::1]", "127.1.2.3"}) {
      assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", "http://" + host + ":" + port), "apps", "list")).as(host).isEqualTo(1);
      assertThat(err()).as(host).startsWith("error: cannot connect");
      err.reset();
    }
    // told insecure, by flag or environment, it tries the network (and fails to connect: nothing listens there)
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", "http://localhost.invalid:" + port), "--insecure", "apps", "list")).isEqualTo(1);
    assertThat(err()).doesNotContain("refusing");
    err.reset();
    assertThat(run(Map.of("UPDRAFT_TOKEN", "t", "UPDRAFT_SERVER", "http://localhost.invalid:" + port, "UPDRAFT_INSECURE", "true"), "apps", "list")).isEqualTo(1);
    assertThat(err()).doesNotContain("refusing");
  }

  @Test
  void generatesTheKeyPairAndCertificateExpoUpdatesAccepts(@TempDir Path dir) throws Exception {
    Path keys = dir.resolve("keys");
    assertThat(run(Map.of(), "keys", "generate", "--out", keys.toString(), "--common-name", "My App", "--validity-years", "3")).isZero();
    String key = Files.readString(keys.resolve("private-key.pem"));
    assertThat(key).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keys.resolve("private-key.pem")))).isEqualTo("rw-------");
    assertThat(Files.readString(keys.resolve("public-key.pem"))).startsWith("-----BEGIN PUBLIC KEY-----");
    X509Certificate cert;
    try (InputStream in = Files.newInputStream(keys.resolve("certificate.pem"))) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    cert.verify(cert.getPublicKey()); // self-signed
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=My App");
    assertThat(cert.getKeyUsage()[0]).as("digitalSignature").isTrue();
    assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.3");
    assertThat(cert.getCriticalExtensionOIDs()).contains("2.5.29.15", "2.5.29.37");
    assertThat(cert.getNotAfter().toInstant()).isAfter(Instant.now().plus(3 * 365 - 1, ChronoUnit.DAYS)).isBefore(Instant.now().plus(3 * 366 + 1, ChronoUnit.DAYS));
    assertThat(cert.getNotBefore().toInstant()).isBefore(Instant.now());
    try (PEMParser p = new PEMParser(new java.io.StringReader(key))) {
      var pair = new JcaPEMKeyConverter().getKeyPair((PEMKeyPair) p.readObject());
      assertThat(pair.getPublic()).isEqualTo(cert.getPublicKey());
      assertThat(((java.security.interfaces.RSAPublicKey) pair.getPublic()).getModulus().bitLength()).isEqualTo(2048);
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("codeSigningMetadata").contains("\"keyid\": \"main\"");
    // never overwrites a key
    assertThat(run(Map.of(), "keys", "generate", "--out", keys.toString())).isEqualTo(1);
    assertThat(err()).contains("refusing to overwrite");
  }
}
