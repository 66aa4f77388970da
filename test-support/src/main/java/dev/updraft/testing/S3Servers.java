package dev.updraft.testing;

import org.junit.jupiter.api.Assumptions;

/**
 * S3 servers a test asks for by name. The S3 server of the test infrastructure (S3Proxy, or MinIO with
 * the testcontainers provider) comes as an {@link S3Bucket} parameter of {@link RealInfrastructure}; this
 * gives MinIO itself, for tests that check one more S3 implementation where Docker exists.
 */
public final class S3Servers {
  private static MinioServer minio;

  private S3Servers() {}

  /**
   * A bucket on a MinIO container shared by the test JVM (Testcontainers removes it at the end); the
   * calling test is skipped, and says so, where no Docker engine answers.
   */
  public static synchronized S3Bucket minio(String bucket) {
    Assumptions.assumeTrue(ContainersProvider.dockerAvailable(), "no Docker engine: the MinIO test is skipped (S3Proxy covers S3 without Docker)");
    if (minio == null) {
      minio = new MinioServer();
    }
    return S3Bucket.create(minio, bucket);
  }
}
