/**
 * The telemetry ingester: device check-ins from Kafka into PostgreSQL, exactly once, in batches.
 *
 * <p>Public surface: {@link dev.updraft.controlplane.ingest.IngesterConfig} (flags),
 * {@link dev.updraft.controlplane.ingest.TelemetryIngester} (start/close/metrics) and
 * {@link dev.updraft.controlplane.ingest.SchemaMigrations} (the telemetry schema, also applied by
 * insights users). Everything else is package-private.
 */
package dev.updraft.controlplane.ingest;
