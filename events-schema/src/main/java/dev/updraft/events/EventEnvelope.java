package dev.updraft.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One event on {@code updraft.events}, keyed by {@link #appId()}.
 *
 * @param sequence per app, gap-free, starting at 1
 * @param actor the token id that caused the event ({@code admin} for the bootstrap token, {@code guard}
 *     for an automatic revert, {@code system} for renewals)
 * @param schemaVersion the version the payload was written with
 */
public record EventEnvelope(
    UUID eventId,
    EventType type,
    int schemaVersion,
    String appId,
    long sequence,
    Instant occurredAt,
    String actor,
    EventPayload payload) {

  public EventEnvelope {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(appId, "appId");
    Objects.requireNonNull(occurredAt, "occurredAt");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(payload, "payload");
    if (payload.type() != type) {
      throw new IllegalArgumentException(
          "payload does not match type: type=" + type.wireName() + " payload=" + payload.getClass().getSimpleName());
    }
    if (sequence < 1) {
      throw new IllegalArgumentException("sequence must be >= 1: appId=" + appId + " sequence=" + sequence);
    }
  }

  /** A new envelope at the current schema version with a random event id. */
  public static EventEnvelope of(String appId, long sequence, Instant occurredAt, String actor, EventPayload payload) {
    return new EventEnvelope(
        UUID.randomUUID(), payload.type(), EventType.CURRENT_SCHEMA_VERSION, appId, sequence, occurredAt, actor, payload);
  }
}
