/**
 * Real Kafka, PostgreSQL and an S3 API server for integration tests: started once per test JVM (S3 on
 * first use), a fresh topic prefix, database and bucket per test class, stopped at the end.
 *
 * <p>Provider: {@code -Dupdraft.test.infra=embedded} (default: Kafka through {@code KafkaClusterTestKit}
 * in this JVM, PostgreSQL 17 from zonky's binaries, S3Proxy from Maven Central in a child JVM) or
 * {@code testcontainers} (Docker images, MinIO for S3; tests are skipped, never failed, where no Docker
 * engine answers). {@code UPDRAFT_TEST_INFRA} works too.
 *
 * <p>For faults: {@link dev.updraft.testing.KafkaCluster}, a cluster of a test's own (one broker, or several
 * beside a controller, in this JVM, each stopped and started again at will, optionally each behind a proxy);
 * {@link dev.updraft.testing.KafkaProcesses}, three brokers and a three-node controller quorum each an OS process
 * of its own, to SIGKILL and restart on its own log directory, every broker also behind a proxy; and
 * {@link dev.updraft.testing.TcpProxy}, to cut or stall a connection between a client and a server.
 */
package dev.updraft.testing;
