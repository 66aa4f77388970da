/**
 * Real infrastructure started by the project itself, without Docker: a Kafka broker in KRaft mode
 * running inside this JVM, and a PostgreSQL server from zonky's Maven-packaged binaries. Used by
 * {@code ./updraft dev} (persistent data under the data dir) and by fault-injection tests (which stop
 * and restart them on the same data).
 */
package dev.updraft.embedded;
