/**
 * The publisher CLI: a plain HTTP client of the control plane's {@code /v1} API (java.net.http and
 * Jackson; BouncyCastle for {@code keys generate}). It never imports the control plane.
 */
package dev.updraft.cli;
