package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.signin.OidcFlags;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OidcFlagsTest {
  @TempDir Path dir;

  private Map<String, String> flags(Map<String, String> oidc) {
    Map<String, String> m = new HashMap<>(Map.of("admin-token", "0123456789abcdef", "data-dir", dir.toString()));
    m.putAll(oidc);
    return m;
  }

  private ControlPlaneConfig config(Map<String, String> oidc, Map<String, String> env) {
    return ControlPlaneConfig.from(Settings.of(flags(oidc), env));
  }

  private Map<String, String> valid() throws Exception {
    Path roles = Files.writeString(dir.resolve("roles"), "group:devs * read\n");
    return new HashMap<>(Map.of("oidc-issuer", "https://idp.example.com/realms/corp/", "oidc-client-id", "updraft",
        "oidc-roles", roles.toString(), "oidc-redirect-base-url", "https://updraft.example.com"));
  }

  @Test
  void offUnlessAnIssuerIsGiven() {
    assertThat(config(Map.of(), Map.of()).oidc().enabled()).isFalse();
    assertThatThrownBy(() -> config(Map.of("oidc-client-id", "x"), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--oidc-client-id (UPDRAFT_OIDC_CLIENT_ID) needs --oidc-issuer");
  }

  @Test
  void aCompleteConfigurationHasSecureCookiesAndKeepsTheSecretOutOfItsText() throws Exception {
    OidcFlags o = config(valid(), Map.of("UPDRAFT_OIDC_CLIENT_SECRET", "s3cr3t-value")).oidc();
    assertThat(o.enabled()).isTrue();
    assertThat(o.issuer()).isEqualTo("https://idp.example.com/realms/corp");
    assertThat(o.clientSecret()).isEqualTo("s3cr3t-value");
    assertThat(o.secureCookies()).isTrue();
    assertThat(o.sessionMaxAge()).hasHours(8);
    assertThat(o.toString()).doesNotContain("s3cr3t-value").contains("<redacted>");
  }

  @Test
  void theSecretComesFromAFileOrTheEnvironmentNeverFromAFlagValue() throws Exception {
    Map<String, String> f = valid();
    f.put("oidc-client-secret-file", Files.writeString(dir.resolve("secret"), "from-file\n").toString());
    assertThat(config(f, Map.of()).oidc().clientSecret()).isEqualTo("from-file");
    assertThatThrownBy(() -> config(f, Map.of("UPDRAFT_OIDC_CLIENT_SECRET", "x"))).hasMessageContaining("not both");
    Map<String, String> flag = valid();
    flag.put("oidc-client-secret", "in-the-process-list");
    assertThatThrownBy(() -> config(flag, Map.of())).hasMessageContaining("unknown flag --oidc-client-secret");
  }

  @Test
  void badConfigurationStopsTheStartNamingTheFlag() throws Exception {
    Map<String, String> missing = valid();
    missing.remove("oidc-roles");
    assertThatThrownBy(() -> config(missing, Map.of())).hasMessageContaining("--oidc-roles FILE");
    Map<String, String> http = valid();
    http.put("oidc-redirect-base-url", "http://updraft.example.com");
    assertThatThrownBy(() -> config(http, Map.of())).hasMessageContaining("--oidc-redirect-base-url").hasMessageContaining("must be https");
    Map<String, String> loopback = valid();
    loopback.put("oidc-redirect-base-url", "http://127.0.0.1:8080");
    assertThat(config(loopback, Map.of()).oidc().secureCookies()).as("plain http on loopback, for development").isFalse();
    Map<String, String> age = valid();
    age.put("oidc-session-max-age", "30d");
    assertThatThrownBy(() -> config(age, Map.of())).hasMessageContaining("between 5m and 7d");
    Map<String, String> scopes = valid();
    scopes.put("oidc-scopes", "email profile");
    assertThatThrownBy(() -> config(scopes, Map.of())).hasMessageContaining("must include openid");
    Map<String, String> noFile = valid();
    noFile.put("oidc-roles", dir.resolve("absent").toString());
    assertThatThrownBy(() -> config(noFile, Map.of())).hasMessageContaining("cannot read");
  }
}
