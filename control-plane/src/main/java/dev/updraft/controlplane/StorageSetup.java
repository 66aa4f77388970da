package dev.updraft.controlplane;

import com.google.auth.Credentials;
import com.google.auth.ServiceAccountSigner;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.auth.oauth2.ServiceAccountCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.AzureConnect;
import dev.updraft.controlplane.storage.GcsAssetStorage;
import dev.updraft.controlplane.storage.LocalAssetStorage;
import dev.updraft.controlplane.storage.S3Connect;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.function.Supplier;

/**
 * Opens the configured asset storage at start (a worker thread), checking what can be checked before the
 * control plane serves: the GCS credentials, the S3 credentials and bucket, the Azure credentials and container.
 */
final class StorageSetup {
  private StorageSetup() {}

  static AssetStorage open(ControlPlaneConfig config, Hooks hooks, Supplier<String> url) throws IOException {
    return switch (config.storage()) {
      case LOCAL -> new LocalAssetStorage(config.storageDir(), url);
      case GCS -> gcs(config, hooks);
      case S3 -> S3Connect.open(config.s3().options());
      case AZURE -> AzureConnect.open(config.azure().options());
    };
  }

  private static AssetStorage gcs(ControlPlaneConfig config, Hooks hooks) {
    Credentials creds = null;
    if (config.gcs().credentials() != null) {
      try (InputStream in = Files.newInputStream(config.gcs().credentials())) {
        creds = ServiceAccountCredentials.fromStream(in);
      } catch (IOException e) {
        throw new IllegalStateException(
            "--gcs-credentials file=" + config.gcs().credentials() + " is not a service-account JSON key: " + e.getMessage(), e);
      }
    } else if (hooks.gcs() == null || config.gcs().baseUrl() == null) {
      try {
        creds = GoogleCredentials.getApplicationDefault();
      } catch (IOException e) {
        throw new IllegalStateException(
            "no GCS credentials: give --gcs-credentials (a service-account JSON key) or configure application default credentials: " + e.getMessage(), e);
      }
    }
    Storage client =
        hooks.gcs() != null ? hooks.gcs() : StorageOptions.newBuilder().setCredentials(creds).build().getService();
    ServiceAccountSigner signer = creds instanceof ServiceAccountSigner ? (ServiceAccountSigner) creds : null;
    if (config.gcs().baseUrl() == null && signer == null) {
      throw new IllegalStateException(
          "signed asset URLs need service-account credentials that can sign (--gcs-credentials), or give --gcs-base-url for a public bucket or CDN");
    }
    return new GcsAssetStorage(client, config.gcs().bucket(), config.gcs().baseUrl(), config.gcs().signedUrlTtl(), signer);
  }
}
