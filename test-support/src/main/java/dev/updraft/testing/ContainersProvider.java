package dev.updraft.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.kafka.KafkaContainer;

/** Kafka (KRaft), PostgreSQL 17 and MinIO (on first use) in Docker containers, where a Docker engine answers. */
final class ContainersProvider implements Provider {
  private final KafkaContainer kafka;
  private final PostgreSQLContainer<?> pg;
  private MinioServer s3;

  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  ContainersProvider() {
    kafka = new KafkaContainer("apache/kafka:4.1.1");
    pg = new PostgreSQLContainer<>("postgres:17");
    kafka.start();
    pg.start();
  }

  @Override
  public String kafkaBootstrap() {
    return kafka.getBootstrapServers();
  }

  @Override
  public String pgHost() {
    return pg.getHost();
  }

  @Override
  public int pgPort() {
    return pg.getMappedPort(5432);
  }

  @Override
  public String pgUser() {
    return pg.getUsername();
  }

  @Override
  public String pgPassword() {
    return pg.getPassword();
  }

  @Override
  public synchronized S3Server s3() {
    if (s3 == null) {
      s3 = new MinioServer();
    }
    return s3;
  }

  @Override
  public void createDatabase(String name) {
    try (Connection c = DriverManager.getConnection(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
        if (rs.next()) {
          return;
        }
      }
      st.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + " in the PostgreSQL container", e);
    }
  }

  @Override
  public void close() {
    kafka.stop();
    pg.stop();
    if (s3 != null) {
      s3.close();
    }
  }
}
