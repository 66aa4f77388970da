package dev.updraft.testing;

/**
 * What an integration test class gets: a Kafka cluster and a PostgreSQL database of its own (a topic
 * prefix and a database nobody else uses). Obtain it as a parameter of a test or a lifecycle method in
 * a class annotated with {@code @ExtendWith(RealInfrastructure.class)}.
 *
 * @param kafkaBootstrap {@code host:port}
 * @param topicPrefix unique to the test class, ends with {@code .}
 * @param pgHost host of PostgreSQL
 * @param pgPort port of PostgreSQL
 * @param database a database created for the test class
 * @param pgUser user with rights on it
 * @param pgPassword its password (empty for trust authentication)
 */
public record Infra(
    String kafkaBootstrap,
    String topicPrefix,
    String pgHost,
    int pgPort,
    String database,
    String pgUser,
    String pgPassword) {

  /** A JDBC URL for the test's database. */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + pgHost + ":" + pgPort + "/" + database;
  }
}
