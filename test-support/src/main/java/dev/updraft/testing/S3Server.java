package dev.updraft.testing;

/** A running S3 API server for tests: where it listens and the one access key it accepts. */
interface S3Server extends AutoCloseable {
  /** {@code http://127.0.0.1:<port>}, path-style addressing. */
  String endpoint();

  String region();

  String accessKey();

  String secretKey();

  @Override
  void close();
}
