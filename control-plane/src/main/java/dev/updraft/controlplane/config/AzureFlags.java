package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.AZURE_SAS_TTL;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.storage.AzureConnect;
import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The {@code --azure-*} flags of {@code --storage azure}, validated with the rest of {@link ControlPlaneConfig}:
 * {@code --azure-account} and {@code --azure-container} (required); {@code --azure-endpoint}
 * [https://&lt;account&gt;.blob.core.windows.net] (Azurite, sovereign clouds); one credential, best given by its
 * environment variable: {@code --azure-account-key} (shared key; asset URLs carry a read-only SAS it signs) or
 * {@code --azure-sas-token} (a container SAS; needs {@code --azure-public-base-url}, since that token may write
 * and must never reach devices); {@code --azure-public-base-url} (public container or CDN; without it SAS URLs);
 * {@code --azure-sas-ttl} [7d, 10s..7d]. The credential never appears in {@link #toString()}. Immutable.
 *
 * @param account nullable unless storage is azure
 * @param accountKey nullable: the shared key (secret)
 * @param sasToken nullable: a SAS token without its leading {@code ?} (secret)
 * @param publicBaseUrl nullable: SAS URLs valid for {@code sasTtl}
 */
public record AzureFlags(
    String account, String container, URI endpoint, String accountKey, String sasToken, String publicBaseUrl, Duration sasTtl) {
  /** Longest a SAS URL is made valid for (as S3's and GCS's signed URLs). */
  public static final Duration MAX_SAS_TTL = Duration.ofDays(7);

  private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
  private static final Pattern CONTAINER = Pattern.compile("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]");

  static AzureFlags from(Settings s, boolean chosen) {
    String account = s.raw("azure-account");
    String container = s.raw("azure-container");
    String endpoint = s.raw("azure-endpoint");
    String key = s.raw("azure-account-key");
    String sas = s.raw("azure-sas-token");
    String base = s.raw("azure-public-base-url");
    // bounds checked only when this storage is chosen, as before the flag table
    Duration ttl = chosen ? AZURE_SAS_TTL.read(s) : s.duration(AZURE_SAS_TTL.name(), MAX_SAS_TTL);
    if (!chosen) {
      if (account != null || container != null || endpoint != null || key != null || sas != null || base != null) {
        throw new ConfigException("--azure-account, --azure-container, --azure-endpoint, --azure-account-key, --azure-sas-token and"
            + " --azure-public-base-url need --storage azure");
      }
      return new AzureFlags(null, null, null, null, null, null, ttl);
    }
    if (account == null || container == null) {
      throw new ConfigException("--azure-account (UPDRAFT_AZURE_ACCOUNT) and --azure-container (UPDRAFT_AZURE_CONTAINER) are required with --storage azure");
    }
    if (!ACCOUNT.matcher(account).matches()) {
      throw new ConfigException("--azure-account (UPDRAFT_AZURE_ACCOUNT) must be a storage account name (3-24 lower-case letters and digits): got '" + account + "'");
    }
    if (!CONTAINER.matcher(container).matches()) {
      throw new ConfigException(
          "--azure-container (UPDRAFT_AZURE_CONTAINER) must be a container name (3-63 lower-case letters, digits and single dashes): got '" + container + "'");
    }
    if ((key == null) == (sas == null)) {
      throw new ConfigException("--storage azure needs exactly one credential: UPDRAFT_AZURE_ACCOUNT_KEY (--azure-account-key, the shared key)"
          + " or UPDRAFT_AZURE_SAS_TOKEN (--azure-sas-token, a container SAS with --azure-public-base-url)");
    }
    if (sas != null && base == null) {
      throw new ConfigException("--azure-sas-token (UPDRAFT_AZURE_SAS_TOKEN) needs --azure-public-base-url (a CDN or a public container): the"
          + " token cannot sign read-only URLs per asset, and putting it in manifests would hand devices a token that may write. Give the"
          + " account key instead for SAS URLs");
    }
    if (sas != null) {
      sas = sas.startsWith("?") ? sas.substring(1) : sas;
      if (!sas.contains("sig=")) {
        throw new ConfigException("--azure-sas-token (UPDRAFT_AZURE_SAS_TOKEN) is not a SAS token (a query string with sv=...&sig=...)");
      }
    }
    String url = endpoint == null ? "https://" + account + ".blob.core.windows.net" : ControlPlaneConfig.checkUrl("azure-endpoint", endpoint);
    String publicBase = base == null ? null : ControlPlaneConfig.checkUrl("azure-public-base-url", base);
    return new AzureFlags(account, container, URI.create(url), key, sas, publicBase, ttl);
  }

  /** What {@link AzureConnect} needs. */
  public AzureConnect.Options options() {
    return new AzureConnect.Options(account, container, endpoint, accountKey, sasToken, publicBaseUrl, sasTtl);
  }

  @Override
  public String toString() {
    String auth = accountKey != null ? "shared key <redacted>" : sasToken != null ? "SAS token <redacted>" : "none";
    return "AzureFlags{account=" + account + ", container=" + container + ", endpoint=" + endpoint + ", auth=" + auth
        + ", publicBaseUrl=" + publicBaseUrl + ", sasTtl=" + sasTtl + "}";
  }
}
