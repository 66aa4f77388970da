/**
 * Real Kafka and PostgreSQL for integration tests: started once per test JVM, a fresh topic prefix and
 * database per test class, stopped at the end.
 *
 * <p>Provider: {@code -Dupdraft.test.infra=embedded} (default: Kafka through {@code KafkaClusterTestKit}
 * in this JVM, PostgreSQL 17 from zonky's binaries) or {@code testcontainers} (Docker images; tests are
 * skipped, never failed, where no Docker engine answers). {@code UPDRAFT_TEST_INFRA} works too.
 */
package dev.updraft.testing;
