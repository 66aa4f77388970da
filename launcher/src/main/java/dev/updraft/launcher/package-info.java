/**
 * The {@code updraft} command: {@code dev} (everything in one process on embedded Kafka and
 * PostgreSQL), the services alone ({@code control-plane}, {@code edge}, {@code ingest}), the load
 * generator ({@code load}), backup and restore ({@code backup}, {@code restore}) and every publisher command
 * (handed to the CLI).
 */
package dev.updraft.launcher;
