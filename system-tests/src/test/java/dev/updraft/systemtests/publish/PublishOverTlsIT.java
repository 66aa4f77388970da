package dev.updraft.systemtests.publish;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.cli.Cli;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
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
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real CLI publishes an {@code expo export} folder to a control plane serving HTTPS with a
 * self-signed certificate ({@code --tls-cert}/{@code --tls-key}), trusting it through
 * {@code UPDRAFT_CACERT}; without that the CLI refuses the server and nothing is published.
 */
@ExtendWith(RealInfrastructure.class)
class PublishOverTlsIT {
  static final String ADMIN = "system-test-admin-token-0123";

  record Run(int status, String out, String err) {}

  static Run cli(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Cli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static String pem(Object o) throws Exception {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o);
    }
    return w.toString();
  }

  @Test
  void theCliPublishesOverHttpsWhenItTrustsTheServerCertificate(Infra infra, @TempDir Path dir) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    KeyPair kp = g.generateKeyPair();
    Instant now = Instant.now();
    X500Name name = new X500Name("CN=127.0.0.1");
    var b = new JcaX509v3CertificateBuilder(name, BigInteger.TWO, Date.from(now.minusSeconds(60)), Date.from(now.plusSeconds(3600)), name, kp.getPublic());
    b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
    Path cert = Files.writeString(dir.resolve("tls-cert.pem"), pem(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate()))));
    Path key = Files.writeString(dir.resolve("tls-key.pem"), pem(kp.getPrivate()));

    Map<String, String> flags = new HashMap<>();
    flags.put("kafka-bootstrap", infra.kafkaBootstrap());
    flags.put("topic-prefix", infra.topicPrefix());
    flags.put("control-port", "0");
    flags.put("bind", "127.0.0.1");
    flags.put("admin-token", ADMIN);
    flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    flags.put("data-dir", dir.resolve("data").toString());
    Map<String, String> envFlags = Map.of("UPDRAFT_TLS_CERT", cert.toString(), "UPDRAFT_TLS_KEY", key.toString());
    Vertx vertx = Vertx.vertx();
    ControlPlane cp =
        ControlPlane.start(vertx, ControlPlaneConfig.from(Settings.of(flags, envFlags))).toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    try {
      String server = "https://127.0.0.1:" + cp.port();
      Map<String, String> untrusted = Map.of("UPDRAFT_SERVER", server, "UPDRAFT_TOKEN", ADMIN);
      Run refused = cli(untrusted, "apps", "create", "tls-demo");
      assertThat(refused.status()).isEqualTo(1);
      assertThat(refused.err()).startsWith("error: TLS handshake").contains("--cacert").contains("UPDRAFT_CACERT");
      Map<String, String> env = Map.of("UPDRAFT_SERVER", server, "UPDRAFT_TOKEN", ADMIN, "UPDRAFT_CACERT", cert.toString());
      assertThat(cli(env, "apps", "list", "--json").out()).doesNotContain("tls-demo");

      Run created = cli(env, "apps", "create", "tls-demo");
      assertThat(created.status()).as(created.err()).isZero();
      Run published = cli(env, "publish", "--app", "tls-demo", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString(), "--json");
      assertThat(published.status()).as(published.err()).isZero();
      JsonNode group = new com.fasterxml.jackson.databind.ObjectMapper().readTree(published.out());
      assertThat(group.get("platforms")).hasSize(2);
      // asset URLs written into manifests use the HTTPS base by default
      assertThat(cp.publicUrl()).isEqualTo(server);
      Run listed = cli(env, "updates", "list", "--app", "tls-demo", "--json");
      assertThat(listed.status()).as(listed.err()).isZero();
      assertThat(listed.out()).contains(group.get("groupId").asText());
      System.out.println("publish over TLS: untrusted CLI refused (" + refused.err().strip() + "); with UPDRAFT_CACERT published group "
          + group.get("groupId").asText());
    } finally {
      cp.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }
}
