package dev.updraft.events;

/**
 * The result of decoding one record: an event, an event of a type (or newer schema version) this build
 * does not know, or bytes that are not an event at all. Expected conditions are values, not exceptions.
 */
public sealed interface Decoded {

  record Known(EventEnvelope envelope) implements Decoded {}

  /** A well-formed envelope whose type or schema version this build does not know. */
  record Unknown(String type, int schemaVersion, String appId, long sequence) implements Decoded {}

  /** Not an event: the reason names what was wrong. */
  record Malformed(String reason) implements Decoded {}
}
