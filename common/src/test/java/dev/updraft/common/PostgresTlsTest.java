package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresTlsTest {
  @TempDir Path dir;

  private Path pem(String name) throws IOException {
    return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  }

  private static PostgresTls from(String... flags) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < flags.length; i += 2) {
      m.put(flags[i], flags[i + 1]);
    }
    return PostgresTls.from(Settings.of(m, Map.of()));
  }

  @Test
  void verifyFullChecksTheServersNameAgainstTheGivenCa() throws IOException {
    Path ca = pem("ca.crt");
    PgConnectOptions o = from("postgres-ssl-mode", "verify-full", "postgres-ssl-ca", ca.toString())
        .apply(PgConnectOptions.fromUri("postgresql://u@db.example.com:5432/updraft"));
    assertThat(o.getSslMode()).isEqualTo(SslMode.VERIFY_FULL);
    assertThat(o.getSslOptions().getHostnameVerificationAlgorithm()).isEqualTo("HTTPS");
    assertThat(((PemTrustOptions) o.getSslOptions().getTrustOptions()).getCertPaths()).containsExactly(ca.toString());
    assertThat(o.getSslOptions().getKeyCertOptions()).isNull();
  }

  @Test
  void withoutFlagsTheUrlsSslModeStands() {
    PgConnectOptions o = PostgresTls.NONE.apply(PgConnectOptions.fromUri("postgresql://u@h:5432/db?sslmode=require"));
    assertThat(o.getSslMode()).isEqualTo(SslMode.REQUIRE);
    assertThat(from()).isSameAs(PostgresTls.NONE);
  }

  @Test
  void refusesAVerifyModeWithoutCaAHalfClientCertificateAndANonPemFile() throws IOException {
    assertThatThrownBy(() -> from("postgres-ssl-mode", "verify-full"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("needs --postgres-ssl-ca FILE");
    Path cert = pem("client.crt");
    assertThatThrownBy(() -> from("postgres-ssl-mode", "require", "postgres-ssl-cert", cert.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--postgres-ssl-cert and --postgres-ssl-key go together");
    Path notPem = Files.writeString(dir.resolve("ca.der"), "binary");
    assertThatThrownBy(() -> from("postgres-ssl-mode", "verify-ca", "postgres-ssl-ca", notPem.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--postgres-ssl-ca (UPDRAFT_POSTGRES_SSL_CA) " + notPem + " is not a PEM file");
    assertThatThrownBy(() -> from("postgres-ssl-mode", "sometimes"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--postgres-ssl-mode");
  }
}
