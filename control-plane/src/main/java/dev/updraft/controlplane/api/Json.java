package dev.updraft.controlplane.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.CommandException;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Reading request JSON with 400s that name the field, and writing responses. */
final class Json {
  /** Refuses trailing content after the JSON value ({@code {"a":1} junk} would otherwise parse as {@code {"a":1}}). */
  static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private Json() {}

  /** The request body as a JSON object; an empty body is an empty object. */
  static ObjectNode body(RoutingContext rc) {
    Buffer b = rc.body() == null ? null : rc.body().buffer();
    if (b == null || b.length() == 0) {
      return MAPPER.createObjectNode();
    }
    JsonNode n;
    try {
      n = MAPPER.readTree(b.getBytes());
    } catch (IOException e) {
      throw new CommandException(400, "bad-json", "the request body is not valid JSON: " + firstLine(e.getMessage()));
    }
    if (n == null || !n.isObject()) {
      throw new CommandException(400, "bad-json", "the request body must be a JSON object");
    }
    return (ObjectNode) n;
  }

  static String string(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new CommandException(400, "invalid-field", field + " must be a string");
    }
    return v.asText();
  }

  static String requiredString(ObjectNode n, String field) {
    String v = string(n, field);
    if (v == null) {
      throw new CommandException(400, "missing-field", field + " is required");
    }
    return v;
  }

  static Integer integer(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new CommandException(400, "invalid-field", field + " must be a whole number");
    }
    return v.asInt();
  }

  static Double number(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isNumber()) {
      throw new CommandException(400, "invalid-field", field + " must be a number");
    }
    return v.asDouble();
  }

  static Long longValue(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new CommandException(400, "invalid-field", field + " must be a whole number");
    }
    return v.asLong();
  }

  static boolean bool(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw new CommandException(400, "invalid-field", field + " must be true or false");
    }
    return v.asBoolean();
  }

  static List<String> strings(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isArray()) {
      throw new CommandException(400, "invalid-field", field + " must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode e : v) {
      if (!e.isTextual()) {
        throw new CommandException(400, "invalid-field", field + " must be an array of strings");
      }
      out.add(e.asText());
    }
    return out;
  }

  static ObjectNode object(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isObject()) {
      throw new CommandException(400, "invalid-field", field + " must be a JSON object");
    }
    return (ObjectNode) v;
  }

  static void send(RoutingContext rc, int status, JsonNode body) {
    String text;
    try {
      text = MAPPER.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write response JSON", e);
    }
    rc.response().setStatusCode(status).putHeader("content-type", "application/json").end(text);
  }

  static void error(RoutingContext rc, int status, String code, String message) {
    ObjectNode root = MAPPER.createObjectNode();
    ObjectNode err = root.putObject("error");
    err.put("code", code);
    err.put("message", message);
    if (status == 401) {
      rc.response().putHeader("www-authenticate", "Bearer");
    }
    if (!rc.response().ended() && !rc.response().headWritten()) {
      send(rc, status, root);
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int i = s.indexOf('\n');
    return i < 0 ? s : s.substring(0, i);
  }
}
