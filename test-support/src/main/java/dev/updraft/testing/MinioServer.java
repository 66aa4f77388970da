package dev.updraft.testing;

import org.testcontainers.containers.MinIOContainer;

/** MinIO in a Docker container, where a Docker engine answers. */
final class MinioServer implements S3Server {
  static final String IMAGE = "minio/minio:RELEASE.2023-09-04T19-57-37Z";

  private final MinIOContainer minio;

  MinioServer() {
    minio = new MinIOContainer(IMAGE);
    minio.start();
  }

  @Override
  public String endpoint() {
    return minio.getS3URL();
  }

  @Override
  public String region() {
    return "us-east-1";
  }

  @Override
  public String accessKey() {
    return minio.getUserName();
  }

  @Override
  public String secretKey() {
    return minio.getPassword();
  }

  @Override
  public void close() {
    minio.stop();
  }
}
