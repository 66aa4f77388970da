package dev.updraft.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * JSON codec for {@link EventEnvelope}. Thread-safe.
 *
 * <p>Wire shape: {@code {"eventId","type","schemaVersion","appId","sequence","occurredAt","actor","payload"}}.
 * Null payload fields are left out; unknown fields are ignored on read (see COMPATIBILITY.md).
 */
public final class EventCodec {

  static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private EventCodec() {}

  /** The JSON bytes of an envelope. */
  public static byte[] encode(EventEnvelope e) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("eventId", e.eventId().toString());
    root.put("type", e.type().wireName());
    root.put("schemaVersion", e.schemaVersion());
    root.put("appId", e.appId());
    root.put("sequence", e.sequence());
    root.put("occurredAt", e.occurredAt().toString());
    root.put("actor", e.actor());
    root.set("payload", MAPPER.valueToTree(e.payload()));
    try {
      return MAPPER.writeValueAsBytes(root);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot encode event type=" + e.type().wireName() + " appId=" + e.appId(), ex);
    }
  }

  /** Decodes one record value. Never throws for bad input: see {@link Decoded}. */
  public static Decoded decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return new Decoded.Malformed("empty record value");
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(bytes);
    } catch (IOException ex) {
      return new Decoded.Malformed("not JSON: " + ex.getMessage());
    }
    if (root == null || !root.isObject()) {
      return new Decoded.Malformed("not a JSON object");
    }
    String typeName = text(root, "type");
    String appId = text(root, "appId");
    JsonNode version = root.get("schemaVersion");
    JsonNode sequence = root.get("sequence");
    if (typeName == null || appId == null || version == null || !version.canConvertToInt()
        || sequence == null || !sequence.canConvertToLong()) {
      return new Decoded.Malformed("missing type, appId, schemaVersion or sequence");
    }
    EventType type = EventType.fromWireName(typeName);
    int schemaVersion = version.asInt();
    if (type == null || schemaVersion > EventType.CURRENT_SCHEMA_VERSION || schemaVersion < 1) {
      return new Decoded.Unknown(typeName, schemaVersion, appId, sequence.asLong());
    }
    try {
      UUID eventId = UUID.fromString(text(root, "eventId"));
      Instant occurredAt = Instant.parse(text(root, "occurredAt"));
      String actor = text(root, "actor");
      JsonNode payloadNode = root.get("payload");
      if (payloadNode == null || !payloadNode.isObject()) {
        return new Decoded.Malformed("payload missing: type=" + typeName + " appId=" + appId);
      }
      EventPayload payload = MAPPER.treeToValue(payloadNode, type.payloadClass());
      return new Decoded.Known(
          new EventEnvelope(eventId, type, schemaVersion, appId, sequence.asLong(), occurredAt, actor, payload));
    } catch (IOException | IllegalArgumentException | NullPointerException | DateTimeParseException ex) {
      return new Decoded.Malformed(
          "bad " + typeName + " event: appId=" + appId + " sequence=" + sequence.asLong() + ": " + ex.getMessage());
    }
  }

  /** The bytes {@code r} takes in an event's payload (its JSON, as {@link #encode} writes it). */
  public static int renewalBytes(EventPayload.Renewal r) {
    try {
      return MAPPER.writeValueAsBytes(r).length;
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot encode renewal updateId=" + r.updateId(), ex);
    }
  }

  /**
   * An update group as JSON, the shape it has inside an event's payload (the history projection stores it
   * so that a group the control plane no longer holds can still be shown and republished).
   */
  public static String groupJson(EventPayload.UpdateGroup g) {
    try {
      return MAPPER.writeValueAsString(g);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot encode group groupId=" + g.groupId(), ex);
    }
  }

  /** The group {@link #groupJson} wrote, or null when {@code json} is not one (the reason is logged by the caller). */
  public static EventPayload.UpdateGroup group(String json) {
    try {
      return MAPPER.readValue(json, EventPayload.UpdateGroup.class);
    } catch (IOException | IllegalArgumentException | NullPointerException ex) {
      return null;
    }
  }

  private static String text(JsonNode root, String field) {
    JsonNode n = root.get(field);
    return n == null || !n.isTextual() ? null : n.asText();
  }
}
