package dev.updraft.edge.otlp;

import java.util.Map;

/**
 * One exception found in an OTLP request: a log record or a span event carrying {@code exception.*} attributes,
 * with its resource's string attributes.
 *
 * @param resource the resource's attributes (strings; booleans and numbers as their text)
 * @param source {@code log} or {@code span}
 * @param type {@code exception.type}, nullable
 * @param message {@code exception.message} (or a log record's string body), nullable
 * @param stacktrace {@code exception.stacktrace}, nullable
 * @param fatal {@code exception.escaped} true, or a log severity of FATAL (21 and up)
 * @param timeNanos the record's time, 0 when absent
 */
record Found(Map<String, String> resource, String source, String type, String message, String stacktrace, boolean fatal, long timeNanos) {}
