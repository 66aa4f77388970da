package dev.updraft.testing;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A bucket of a test class's own on a real S3 API server (S3Proxy on its filesystem backend in a child
 * JVM, or MinIO in Docker with the testcontainers provider), with the server's endpoint and the access
 * key it accepts. Obtain it as a parameter in a class using {@link RealInfrastructure}, or from
 * {@link S3Servers#minio}.
 *
 * <p>The code under test reads credentials from the AWS default provider chain: {@link #exportCredentials()}
 * puts them where the chain looks first (the {@code aws.accessKeyId} and {@code aws.secretAccessKey}
 * system properties) and turns off the instance-metadata lookup, so no test ever asks the network.
 */
public record S3Bucket(String endpoint, String region, String accessKey, String secretKey, String bucket) {

  /** Creates {@code name} on {@code server} (harmless when it exists). */
  static S3Bucket create(S3Server server, String name) {
    S3Bucket b = new S3Bucket(server.endpoint(), server.region(), server.accessKey(), server.secretKey(), name);
    try (S3Client c = b.client()) {
      c.createBucket(r -> r.bucket(name));
    } catch (S3Exception e) {
      if (e.statusCode() != 409) {
        throw e;
      }
      // an earlier test method of the same class made it
    }
    return b;
  }

  /** The same server and key, another bucket name (which need not exist). */
  public S3Bucket named(String otherBucket) {
    return new S3Bucket(endpoint, region, accessKey, secretKey, otherBucket);
  }

  /** The same server and bucket, another secret (which the server refuses). */
  public S3Bucket withSecret(String otherSecret) {
    return new S3Bucket(endpoint, region, accessKey, otherSecret, bucket);
  }

  /** A client with this key, path-style, for looking into the bucket; close it. */
  public S3Client client() {
    return S3Client.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .endpointOverride(URI.create(endpoint))
        .region(Region.of(region))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        // S3-compatible servers do not all take the SDK's newer CRC trailers (aws-chunked uploads)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }

  /** The control plane's flags for this bucket, as name, value pairs ({@code --storage s3 --s3-bucket ...}). */
  public List<String> controlPlaneFlags() {
    return new ArrayList<>(
        List.of("storage", "s3", "s3-bucket", bucket, "s3-endpoint", endpoint, "s3-region", region, "s3-path-style", "true"));
  }

  /**
   * Sets this key as the AWS default chain's system properties until the returned handle is closed,
   * which restores what was there.
   */
  public Exported exportCredentials() {
    Map<String, String> values = Map.of("aws.accessKeyId", accessKey, "aws.secretAccessKey", secretKey, "aws.disableEc2Metadata", "true");
    Map<String, String> before = new HashMap<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      before.put(e.getKey(), System.getProperty(e.getKey()));
      System.setProperty(e.getKey(), e.getValue());
    }
    return new Exported(before);
  }

  /** Credentials exported as system properties; {@link #close()} restores the earlier values. */
  public static final class Exported implements AutoCloseable {
    private final Map<String, String> before;

    private Exported(Map<String, String> before) {
      this.before = before;
    }

    @Override
    public void close() {
      for (Map.Entry<String, String> e : before.entrySet()) {
        if (e.getValue() == null) {
          System.clearProperty(e.getKey());
        } else {
          System.setProperty(e.getKey(), e.getValue());
        }
      }
    }
  }

  @Override
  public String toString() {
    return "S3Bucket{endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket + ", accessKey=" + accessKey + ", secretKey=<redacted>}";
  }
}
