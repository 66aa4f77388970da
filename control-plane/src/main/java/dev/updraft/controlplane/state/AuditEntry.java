package dev.updraft.controlplane.state;

import java.time.Instant;

/** One event of an app as the audit log shows it. */
public record AuditEntry(
    long sequence, String eventId, String type, Instant occurredAt, String actor, String summary) {}
