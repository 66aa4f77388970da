/**
 * The edge's OTLP/HTTP ingestion route for the errors apps report ({@code POST /v1/logs}, {@code POST /v1/traces},
 * JSON and protobuf): bounded decoding off the event loop into {@code ErrorReport}s sent to {@code updraft.errors}.
 */
package dev.updraft.edge.otlp;
