package dev.updraft.edge.otlp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Map;

/**
 * OTLP/HTTP JSON ({@code application/json}): {@code ExportLogsServiceRequest} and {@code ExportTraceServiceRequest}
 * in the protobuf JSON mapping (lowerCamelCase field names, 64-bit integers as strings or numbers). Reads only what
 * the route needs; unknown fields are ignored as the spec asks. Thread-safe.
 */
final class OtlpJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private OtlpJson() {}

  static Decoded logs(byte[] body, int cap) throws OtlpSyntaxException {
    JsonNode root = root(body);
    Decoded d = new Decoded(cap);
    for (JsonNode rl : array(root, "resourceLogs")) {
      Map<String, String> resource = attributes(rl.path("resource"));
      for (JsonNode sl : array(rl, "scopeLogs")) {
        for (JsonNode lr : array(sl, "logRecords")) {
          d.items++;
          Map<String, String> attrs = attributes(lr);
          JsonNode bodyValue = lr.path("body");
          String text = bodyValue.isObject() ? value(bodyValue) : null;
          long time = nanos(lr.path("timeUnixNano"), "logRecords[].timeUnixNano");
          if (time == 0) {
            time = nanos(lr.path("observedTimeUnixNano"), "logRecords[].observedTimeUnixNano");
          }
          Found f = Attributes.exception(resource, "log", attrs, text, lr.path("severityNumber").asInt(0) >= Attributes.SEVERITY_FATAL, time);
          if (f != null) {
            d.add(f);
          }
        }
      }
    }
    return d;
  }

  static Decoded traces(byte[] body, int cap) throws OtlpSyntaxException {
    JsonNode root = root(body);
    Decoded d = new Decoded(cap);
    for (JsonNode rs : array(root, "resourceSpans")) {
      Map<String, String> resource = attributes(rs.path("resource"));
      for (JsonNode ss : array(rs, "scopeSpans")) {
        for (JsonNode span : array(ss, "spans")) {
          d.items++;
          for (JsonNode ev : array(span, "events")) {
            Found f = Attributes.exception(resource, "span", attributes(ev), null, false, nanos(ev.path("timeUnixNano"), "events[].timeUnixNano"));
            if (f != null) {
              d.add(f);
            }
          }
        }
      }
    }
    return d;
  }

  private static JsonNode root(byte[] body) throws OtlpSyntaxException {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new OtlpSyntaxException("the body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new OtlpSyntaxException("the body is not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new OtlpSyntaxException("the body is not a JSON object");
    }
    return root;
  }

  private static Iterable<JsonNode> array(JsonNode parent, String field) throws OtlpSyntaxException {
    JsonNode a = parent.path(field);
    if (a.isMissingNode() || a.isNull()) {
      return java.util.List.of();
    }
    if (!a.isArray()) {
      throw new OtlpSyntaxException("'" + field + "' must be an array: got " + a.getNodeType());
    }
    return a;
  }

  private static Map<String, String> attributes(JsonNode holder) throws OtlpSyntaxException {
    Map<String, String> m = Attributes.newMap();
    for (JsonNode kv : array(holder, "attributes")) {
      JsonNode key = kv.path("key");
      if (!key.isTextual()) {
        throw new OtlpSyntaxException("an attribute has no string 'key'");
      }
      Attributes.put(m, key.asText(), value(kv.path("value")));
    }
    return m;
  }

  /** An AnyValue's scalar as text; null for arrays, maps, bytes and empty values. */
  private static String value(JsonNode v) {
    JsonNode s = v.get("stringValue");
    if (s != null) {
      return s.asText();
    }
    for (String scalar : new String[] {"boolValue", "intValue", "doubleValue"}) {
      JsonNode n = v.get(scalar);
      if (n != null && n.isValueNode()) {
        return n.asText();
      }
    }
    return null;
  }

  /** A fixed64 in the JSON mapping: a decimal string or a number; 0 when absent. */
  private static long nanos(JsonNode n, String where) throws OtlpSyntaxException {
    if (n.isMissingNode() || n.isNull()) {
      return 0;
    }
    if (n.isIntegralNumber()) {
      return n.asLong();
    }
    if (n.isTextual()) {
      try {
        return Long.parseUnsignedLong(n.asText());
      } catch (NumberFormatException e) {
        throw new OtlpSyntaxException("'" + where + "' must be a decimal integer: got '" + shorten(n.asText()) + "'");
      }
    }
    throw new OtlpSyntaxException("'" + where + "' must be a decimal integer: got " + n.getNodeType());
  }

  static String shorten(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "…" : s;
  }
}
