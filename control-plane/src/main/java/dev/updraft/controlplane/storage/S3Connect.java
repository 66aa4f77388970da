package dev.updraft.controlplane.storage;

import dev.updraft.common.ConfigException;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Opens {@link S3AssetStorage} and checks it before the control plane serves: credentials from the AWS
 * default provider chain (system properties, {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY},
 * web identity, {@code AWS_PROFILE}, container and instance roles), then a {@code HEAD} of the bucket, so a
 * missing bucket, refused credentials or an unreachable endpoint stop the start with a message naming the
 * flag to fix. Credentials are neither logged nor put in any message.
 */
public final class S3Connect {
  private S3Connect() {}

  /**
   * What the control plane's {@code --s3-*} flags say.
   *
   * @param endpoint nullable: AWS's own endpoint for the region
   * @param region nullable: the AWS default region chain, else {@code us-east-1}
   * @param baseUrl nullable: presigned URLs valid for {@code presignTtl}
   */
  public record Options(String bucket, URI endpoint, String region, boolean pathStyle, String baseUrl, Duration presignTtl) {}

  /** Connects and checks; a {@link ConfigException} says what is wrong. */
  public static S3AssetStorage open(Options o) {
    Region region = region(o.region());
    String where = (o.endpoint() == null ? "" : "endpoint=" + o.endpoint() + " ") + "region=" + region.id();
    DefaultCredentialsProvider credentials = DefaultCredentialsProvider.builder().build();
    AwsCredentials resolved;
    try {
      resolved = credentials.resolveCredentials();
    } catch (SdkClientException e) {
      credentials.close();
      throw new ConfigException(
          "--storage s3 found no AWS credentials in the default provider chain: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,"
              + " AWS_PROFILE, or run with a role (" + firstLine(e.getMessage()) + ")");
    }
    if (o.baseUrl() == null && resolved instanceof AwsSessionCredentials) {
      credentials.close();
      throw new ConfigException(
          "--storage s3 without --s3-public-base-url presigns asset URLs, and the AWS credentials found are temporary (a role, SSO or STS):"
              + " every URL would carry the session token into manifests and the event log, and stop working when the session ends."
              + " Give --s3-public-base-url (a CDN or a public bucket), or long-lived access keys of a user that may only use this bucket");
    }
    // no aws-chunked uploads: over plain HTTP the SDK would sign the body in chunks (Content-Encoding: aws-chunked), and
    // S3-compatible stores (S3Proxy, some others) keep that header on the object and send it with every GET, which a
    // strict client, proxy or CDN honours; AWS strips it. Unchunked, the SDK hashes the file before sending it.
    S3Configuration service = S3Configuration.builder().pathStyleAccessEnabled(o.pathStyle()).chunkedEncodingEnabled(false).build();
    S3Client client =
        withEndpoint(S3Client.builder(), o.endpoint())
            .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(10)).socketTimeout(Duration.ofSeconds(60)))
            .region(region)
            .credentialsProvider(credentials)
            .serviceConfiguration(service)
            // S3-compatible stores do not all take the newer CRC trailers; every upload carries Content-MD5 instead
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .build();
    S3Presigner presigner = null;
    if (o.baseUrl() == null) {
      S3Presigner.Builder b = S3Presigner.builder().region(region).credentialsProvider(credentials).serviceConfiguration(service);
      presigner = (o.endpoint() == null ? b : b.endpointOverride(o.endpoint())).build();
    }
    S3AssetStorage storage = new S3AssetStorage(client, presigner, o.bucket(), o.baseUrl(), o.presignTtl(), where, credentials);
    try {
      checkBucket(client, o.bucket(), where);
    } catch (RuntimeException e) {
      storage.close();
      throw e;
    }
    return storage;
  }

  private static void checkBucket(S3Client client, String bucket, String where) {
    try {
      client.headBucket(r -> r.bucket(bucket));
    } catch (S3Exception e) {
      switch (e.statusCode()) {
        case 404:
          throw new ConfigException("--s3-bucket (UPDRAFT_S3_BUCKET) " + bucket + " does not exist (" + where + "): create it, or fix the name");
        case 403:
        case 401:
          throw new ConfigException(
              "S3 refused the AWS credentials for bucket " + bucket + " (" + where + ", HTTP " + e.statusCode()
                  + "): check the access key and secret (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or the profile) and that the policy allows"
                  + " s3:ListBucket on the bucket (docs/operations.md lists the minimal policy)");
        case 301:
          throw new ConfigException(
              "bucket " + bucket + " is in another region than " + where + ": set --s3-region (UPDRAFT_S3_REGION) to the bucket's region");
        default:
          throw new ConfigException(
              "S3 answered HTTP " + e.statusCode() + " to HEAD bucket " + bucket + " (" + where + "): " + firstLine(e.getMessage()));
      }
    } catch (SdkException e) {
      throw new ConfigException(
          "cannot reach S3 for bucket " + bucket + " (" + where + "): check --s3-endpoint (UPDRAFT_S3_ENDPOINT) and the network: "
              + firstLine(e.getMessage()));
    }
  }

  private static S3ClientBuilder withEndpoint(S3ClientBuilder b, URI endpoint) {
    return endpoint == null ? b : b.endpointOverride(endpoint);
  }

  private static Region region(String configured) {
    if (configured != null) {
      return Region.of(configured);
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkClientException e) {
      return Region.US_EAST_1; // S3-compatible stores mostly ignore the region; AWS answers 301 for a wrong one
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "no detail";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
