package dev.updraft.testing;

/** A source of one Kafka cluster and one PostgreSQL server for the whole test JVM. */
interface Provider extends AutoCloseable {
  String kafkaBootstrap();

  String pgHost();

  int pgPort();

  String pgUser();

  String pgPassword();

  /** The S3 API server, started on first use and closed with the provider. */
  S3Server s3();

  /** Creates a database (idempotent). */
  void createDatabase(String name);

  @Override
  void close();
}
