/**
 * The telemetry ingester: device check-ins from Kafka into PostgreSQL, exactly once, in batches; and,
 * when asked, old telemetry out of it again ({@code RetentionJob}).
 *
 * <p>Public surface: {@link dev.updraft.ingester.IngesterConfig} (flags, with the retention flags in
 * {@link dev.updraft.ingester.RetentionConfig}) and {@link dev.updraft.ingester.TelemetryIngester}
 * (start/close/metrics). Everything else is
 * package-private. The tables it writes are defined by the {@code db-schema} module
 * ({@link dev.updraft.dbschema.SchemaMigrations}), which the control plane's insights read.
 */
package dev.updraft.ingester;
