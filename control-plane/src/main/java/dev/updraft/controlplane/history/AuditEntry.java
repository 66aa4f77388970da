package dev.updraft.controlplane.history;

import java.time.Instant;

/**
 * One event of an app as the audit log shows it (a row the ingester's history projection wrote).
 *
 * @param eventId nullable: an event of a type the ingester did not know
 * @param occurredAt nullable, as {@code eventId}
 */
public record AuditEntry(
    long sequence, String eventId, String type, Instant occurredAt, String actor, String summary) {}
