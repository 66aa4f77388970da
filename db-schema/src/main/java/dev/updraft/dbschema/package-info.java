/**
 * Updraft's PostgreSQL schema, in one place: the versioned migrations ({@code db/migration/*.sql}, in
 * the order of {@code db/migration/index.txt}) and {@link dev.updraft.dbschema.SchemaMigrations}, which
 * applies them. The telemetry tables are written by the ingester ({@code dev.updraft.ingester}) and read
 * by the control plane's insights; this module depends on neither, and neither on the other.
 *
 * <p>A released migration is never edited (its SHA-256 is recorded in {@code schema_version} and
 * checked at every start; {@code SchemaMigrationsTest} pins it): a change is a new {@code V<n>} file
 * listed at the end of the index.
 */
package dev.updraft.dbschema;
