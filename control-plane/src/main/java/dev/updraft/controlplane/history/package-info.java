/**
 * What the control plane reads of the ingester's history projection in PostgreSQL: the audit log and the
 * update groups it no longer holds ({@link dev.updraft.controlplane.history.HistoryReads}).
 */
package dev.updraft.controlplane.history;
