package dev.updraft.edge.otlp;

import java.util.HashMap;
import java.util.Map;

/** The attribute keys the route reads, and a small bounded map of string attributes. */
final class Attributes {
  static final String EXCEPTION_TYPE = "exception.type";
  static final String EXCEPTION_MESSAGE = "exception.message";
  static final String EXCEPTION_STACKTRACE = "exception.stacktrace";
  static final String EXCEPTION_ESCAPED = "exception.escaped";
  /** At most this many attributes are kept per resource or record (the rest are ignored). */
  static final int MAX_KEPT = 64;
  /** OTLP's severity number of FATAL. */
  static final int SEVERITY_FATAL = 21;

  private Attributes() {}

  /** Whether a key is one the route keeps (the resource keys and the exception ones). */
  static boolean wanted(String key) {
    return key.startsWith("exception.") || ResourceKeys.ALL.contains(key);
  }

  static void put(Map<String, String> into, String key, String value) {
    if (key != null && value != null && into.size() < MAX_KEPT && wanted(key)) {
      into.put(key, value);
    }
  }

  static Map<String, String> newMap() {
    return new HashMap<>(8);
  }

  /** Builds the exception, if the attributes name one (a type, a message or a stack trace). */
  static Found exception(Map<String, String> resource, String source, Map<String, String> attrs, String body, boolean fatalSeverity,
      long timeNanos) {
    String type = attrs.get(EXCEPTION_TYPE);
    String message = attrs.get(EXCEPTION_MESSAGE);
    String stack = attrs.get(EXCEPTION_STACKTRACE);
    if (type == null && message == null && stack == null) {
      return null;
    }
    return new Found(resource, source, type, message != null ? message : body, stack,
        fatalSeverity || "true".equals(attrs.get(EXCEPTION_ESCAPED)), timeNanos);
  }
}
