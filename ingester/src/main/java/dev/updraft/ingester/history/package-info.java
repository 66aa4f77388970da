/**
 * The history projection: the audit log and every update group of every app, projected from
 * {@code updraft.events} into PostgreSQL exactly once, for the control plane's audit and group reads.
 * {@link dev.updraft.ingester.history.HistoryProjection} is its entry point.
 */
package dev.updraft.ingester.history;
