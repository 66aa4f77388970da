/**
 * The publisher HTTP API under {@code /v1} (Vert.x Web): bearer-token authentication, JSON bodies and
 * {@code {"error":{"code","message"}}} errors, request size limits, health, Prometheus metrics and the
 * OpenAPI description ({@code docs/api/openapi.yaml}, served at {@code /v1/openapi.yaml}).
 */
package dev.updraft.controlplane.api;
