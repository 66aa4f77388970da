/**
 * The control plane's typed configuration, read once at start and validated:
 * {@link dev.updraft.controlplane.config.ControlPlaneConfig}, the {@code *Flags} records of its flag groups, and
 * the TLS files ({@link dev.updraft.controlplane.config.TlsFiles}). Immutable.
 */
package dev.updraft.controlplane.config;
