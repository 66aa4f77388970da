package dev.updraft.controlplane.storage;

import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.updraft.common.ConfigException;
import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Opens {@link AzureAssetStorage} and checks it before the control plane serves: one listing of the container
 * (at most one blob), so a missing container, a refused key or SAS token, or an unreachable endpoint stop the
 * start with a message naming the flag to fix. The account key and SAS token are neither logged nor put in
 * any message. The SDK talks HTTP through the JDK's client (not its default Netty client, whose Netty would
 * clash with Vert.x's).
 */
public final class AzureConnect {
  private static final Duration TRY_TIMEOUT = Duration.ofMinutes(10);
  private static final Pattern SIG = Pattern.compile("(?i)(sig=)[^&\\s\"'<]*");

  private AzureConnect() {}

  /**
   * What the control plane's {@code --azure-*} flags say; exactly one of {@code accountKey} and
   * {@code sasToken} is set, and a SAS token comes with a {@code baseUrl} (it cannot sign per-blob URLs, and a
   * token that may write must never reach devices).
   *
   * @param endpoint the account's blob service URL ({@code https://<account>.blob.core.windows.net}, or
   *     Azurite's {@code http://127.0.0.1:10000/<account>})
   * @param baseUrl nullable: SAS URLs valid for {@code sasTtl}
   */
  public record Options(String account, String container, URI endpoint, String accountKey, String sasToken, String baseUrl, Duration sasTtl) {
    public Options {
      if ((accountKey == null) == (sasToken == null)) {
        throw new IllegalArgumentException("exactly one of an account key and a SAS token: account=" + account);
      }
      if (sasToken != null && baseUrl == null) {
        throw new IllegalArgumentException("a SAS token needs a public base URL: account=" + account);
      }
    }

    @Override
    public String toString() {
      return "Options{account=" + account + ", container=" + container + ", endpoint=" + endpoint + ", auth="
          + (accountKey != null ? "shared key" : "SAS token") + ", baseUrl=" + baseUrl + ", sasTtl=" + sasTtl + "}";
    }
  }

  /** Connects and checks; a {@link ConfigException} says what is wrong. */
  public static AzureAssetStorage open(Options o) {
    String where = "account=" + o.account() + " endpoint=" + o.endpoint() + " container=" + o.container();
    // the JDK client's response timeout runs from the first byte sent to the answer's headers, so it bounds a whole
    // upload (a bundle of --max-asset-bytes on a slow link): as long as one try may take; a stalled read fails sooner
    HttpClient http =
        new JdkHttpClientBuilder()
            .connectionTimeout(Duration.ofSeconds(10))
            .responseTimeout(TRY_TIMEOUT)
            .readTimeout(Duration.ofSeconds(60))
            .build();
    BlobServiceClientBuilder b =
        new BlobServiceClientBuilder()
            .endpoint(o.endpoint().toString())
            .httpClient(http)
            .retryOptions(new RequestRetryOptions(RetryPolicyType.EXPONENTIAL, 3, TRY_TIMEOUT, Duration.ofMillis(500), Duration.ofSeconds(8), null));
    if (o.accountKey() != null) {
      try {
        b.credential(new StorageSharedKeyCredential(o.account(), o.accountKey()));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("--azure-account-key (UPDRAFT_AZURE_ACCOUNT_KEY) is not an account key (base64): " + where);
      }
    } else {
      b.sasToken(o.sasToken());
    }
    BlobContainerClient container = b.buildClient().getBlobContainerClient(o.container());
    check(container, o, where);
    return new AzureAssetStorage(container, o.baseUrl(), o.sasTtl(), where);
  }

  private static void check(BlobContainerClient container, Options o, String where) {
    try {
      container.listBlobs(new ListBlobsOptions().setPrefix("assets/").setMaxResultsPerPage(1), Duration.ofMinutes(1)).streamByPage().findFirst();
    } catch (BlobStorageException e) {
      String auth = o.accountKey() != null ? "--azure-account-key (UPDRAFT_AZURE_ACCOUNT_KEY)" : "--azure-sas-token (UPDRAFT_AZURE_SAS_TOKEN)";
      if (e.getStatusCode() == 404) {
        throw new ConfigException(
            "--azure-container (UPDRAFT_AZURE_CONTAINER) " + o.container() + " does not exist (" + where + "): create it, or fix the name");
      }
      if (e.getStatusCode() == 403 || e.getStatusCode() == 401) {
        throw new ConfigException(
            "Azure refused the credentials for container " + o.container() + " (" + where + ", HTTP " + e.getStatusCode() + " " + e.getErrorCode()
                + "): check " + auth + " and --azure-account (UPDRAFT_AZURE_ACCOUNT); a SAS token needs the read, add, create, write,"
                + " delete and list permissions on the container, and must not have expired");
      }
      throw new ConfigException(
          "Azure answered HTTP " + e.getStatusCode() + " to listing container " + o.container() + " (" + where + "): " + firstLine(e.getMessage()));
    } catch (RuntimeException e) {
      throw new ConfigException(
          "cannot reach Azure Blob Storage for container " + o.container() + " (" + where + "): check --azure-endpoint (UPDRAFT_AZURE_ENDPOINT)"
              + " or --azure-account and the network: " + firstLine(String.valueOf(e.getMessage())));
    }
  }

  /** The first line of an SDK message, any SAS signature in it blanked. */
  static String firstLine(String s) {
    if (s == null) {
      return "no detail";
    }
    int nl = s.indexOf('\n');
    return SIG.matcher(nl < 0 ? s : s.substring(0, nl)).replaceAll("$1<redacted>");
  }
}
