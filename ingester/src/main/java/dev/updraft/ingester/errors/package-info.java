/**
 * The error reports apps send over OTLP/HTTP: {@code updraft.errors} into {@code error_reports} and
 * {@code error_groups} (by error type and top frame), on a consumer loop of its own.
 */
package dev.updraft.ingester.errors;
