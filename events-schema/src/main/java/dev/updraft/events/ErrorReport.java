package dev.updraft.events;

/**
 * One error an app reported to an edge over OTLP/HTTP (a log record or a span event carrying
 * {@code exception.type}/{@code exception.message}/{@code exception.stacktrace}), written to
 * {@code updraft.errors} (key = client id) and grouped by the ingester into error groups per update (by
 * {@code errorType} and the stack trace's top frame). The record and its JSON (the field names below) are the
 * wire format; golden files in {@code golden-errors/v1}.
 *
 * @param v wire version of this record, {@link #CURRENT_VERSION}
 * @param reportId unique per error: the ingester counts each id once
 * @param appId the app of the edge route ({@code expo.app.id}, or the app the edge was asked on)
 * @param updateId nullable: the update the app runs ({@code expo.update.id}); absent: the embedded bundle or unknown
 * @param channel nullable: {@code expo.channel}
 * @param runtimeVersion nullable: {@code expo.runtime_version}
 * @param platform nullable: {@code os.name} lower-cased ({@code ios}, {@code android})
 * @param clientId nullable: {@code expo.client.id} lower-cased (the EAS client id the app sends with its manifest requests)
 * @param addressBucket nullable: the keyed hash of the /24 or /48 the report came from (never the address)
 * @param edgeId the edge that received it
 * @param source {@code log} or {@code span}
 * @param errorType {@code exception.type}, at most {@link #MAX_TYPE} characters; {@code Error} when absent
 * @param message nullable: {@code exception.message} (or the log body), at most {@link #MAX_MESSAGE} characters
 * @param stacktrace nullable: {@code exception.stacktrace}, at most {@link #MAX_STACK} characters
 * @param fatal the app marked it fatal ({@code exception.escaped} true, or log severity FATAL)
 * @param atEpochMillis when the app says it happened (the record's time), or when the edge received it
 */
public record ErrorReport(
    int v,
    String reportId,
    String appId,
    String updateId,
    String channel,
    String runtimeVersion,
    String platform,
    String clientId,
    String addressBucket,
    String edgeId,
    String source,
    String errorType,
    String message,
    String stacktrace,
    boolean fatal,
    long atEpochMillis) {
  public static final int CURRENT_VERSION = 1;
  public static final int MAX_TYPE = 200;
  public static final int MAX_MESSAGE = 1024;
  public static final int MAX_STACK = 8192;
  public static final String SOURCE_LOG = "log";
  public static final String SOURCE_SPAN = "span";
}
