package dev.updraft.controlplane;

import static dev.updraft.controlplane.ControlPlaneConfigTest.TOKEN;
import static dev.updraft.controlplane.ControlPlaneConfigTest.withFlags;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.AzureFlags;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AzureFlagsTest {
  static final String KEY = "c2hhcmVkIGtleSBvZiB0aGUgdGVzdCBhY2NvdW50LCBub3QgYSByZWFsIG9uZQ==";
  static final String SAS = "sv=2024-11-04&sr=c&sp=racwdl&se=2030-01-01T00%3A00%3A00Z&sig=c2lnbmF0dXJlb2Z0aGV0b2tlbg%3D%3D";

  @Test
  void readsTheCredentialFromTheEnvironmentDefaultsToAzuresEndpointAndNeverShowsIt() {
    ControlPlaneConfig c =
        ControlPlaneConfig.from(
            Settings.of(
                Map.of("admin-token", TOKEN, "storage", "azure"),
                Map.of("UPDRAFT_AZURE_ACCOUNT", "updraftprod", "UPDRAFT_AZURE_CONTAINER", "assets", "UPDRAFT_AZURE_ACCOUNT_KEY", KEY,
                    "UPDRAFT_AZURE_SAS_TTL", "12h")));
    assertThat(c.storage()).isEqualTo(ControlPlaneConfig.StorageKind.AZURE);
    assertThat(c.azure())
        .isEqualTo(new AzureFlags("updraftprod", "assets", URI.create("https://updraftprod.blob.core.windows.net"), KEY, null, null, Duration.ofHours(12)));
    assertThat(c.azure().toString()).contains("updraftprod", "shared key <redacted>").doesNotContain(KEY);
    assertThat(c.toString()).doesNotContain(KEY);
    assertThat(ControlPlaneConfig.STORAGE_FLAGS).as("updraft dev passes them on")
        .contains("azure-account", "azure-container", "azure-endpoint", "azure-account-key", "azure-sas-token", "azure-public-base-url", "azure-sas-ttl");
  }

  @Test
  void aSasTokenComesWithAPublicBaseUrlAndAnEndpointMayBeAzurites() {
    AzureFlags a =
        withFlags("storage", "azure", "azure-account", "devstoreaccount1", "azure-container", "assets", "azure-sas-token", "?" + SAS,
            "azure-public-base-url", "https://cdn.example.com/", "azure-endpoint", "http://127.0.0.1:10000/devstoreaccount1")
            .azure();
    assertThat(a.sasToken()).as("without its leading ?").isEqualTo(SAS);
    assertThat(a.publicBaseUrl()).isEqualTo("https://cdn.example.com");
    assertThat(a.endpoint()).isEqualTo(URI.create("http://127.0.0.1:10000/devstoreaccount1"));
    assertThat(a.sasTtl()).as("default").isEqualTo(Duration.ofDays(7));
    assertThat(a.toString()).contains("SAS token <redacted>").doesNotContain("sig=");
  }

  @Test
  void refusesWhatCannotWorkNamingTheFlag() {
    String[] base = {"storage", "azure", "azure-account", "acct1", "azure-container", "assets"};
    assertThatThrownBy(() -> withFlags("storage", "azure", "azure-container", "assets", "azure-account-key", KEY))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--azure-account (UPDRAFT_AZURE_ACCOUNT) and --azure-container");
    assertThatThrownBy(() -> withFlags(with(base))).hasMessageContaining("exactly one credential");
    assertThatThrownBy(() -> withFlags(with(base, "azure-account-key", KEY, "azure-sas-token", SAS, "azure-public-base-url", "https://cdn.example.com")))
        .hasMessageContaining("exactly one credential");
    assertThatThrownBy(() -> withFlags(with(base, "azure-sas-token", SAS)))
        .as("a token that may write never goes into manifests").hasMessageContaining("--azure-sas-token").hasMessageContaining("--azure-public-base-url")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SAS));
    assertThatThrownBy(() -> withFlags(with(base, "azure-sas-token", "not-a-token", "azure-public-base-url", "https://cdn.example.com")))
        .hasMessageContaining("not a SAS token").satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-a-token"));
    assertThatThrownBy(() -> withFlags("storage", "azure", "azure-account", "Bad_Account", "azure-container", "assets", "azure-account-key", KEY))
        .hasMessageContaining("--azure-account").hasMessageContaining("Bad_Account");
    assertThatThrownBy(() -> withFlags("storage", "azure", "azure-account", "acct1", "azure-container", "bad--name", "azure-account-key", KEY))
        .hasMessageContaining("--azure-container").hasMessageContaining("bad--name");
    assertThatThrownBy(() -> withFlags(with(base, "azure-account-key", KEY, "azure-sas-ttl", "8d"))).hasMessageContaining("--azure-sas-ttl").hasMessageContaining("7d");
    assertThatThrownBy(() -> withFlags(with(base, "azure-account-key", KEY, "azure-sas-ttl", "5s"))).hasMessageContaining("--azure-sas-ttl");
    assertThatThrownBy(() -> withFlags(with(base, "azure-account-key", KEY, "azure-endpoint", "azurite:10000"))).hasMessageContaining("--azure-endpoint");
    assertThatThrownBy(() -> withFlags(with(base, "azure-account-key", KEY, "azure-public-base-url", "https://cdn.example.com?x=1")))
        .hasMessageContaining("--azure-public-base-url");
    assertThatThrownBy(() -> withFlags("azure-container", "assets")).hasMessageContaining("need --storage azure");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "azure-account-key", KEY))
        .hasMessageContaining("need --storage azure").satisfies(e -> assertThat(e.getMessage()).doesNotContain(KEY));
  }

  private static String[] with(String[] base, String... more) {
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }
}
