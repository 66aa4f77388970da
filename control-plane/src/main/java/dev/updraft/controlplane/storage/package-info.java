/**
 * Content-addressed asset storage: bytes stored once per app under their SHA-256, never changed. Local
 * (a directory served by the control plane's asset route) or Google Cloud Storage (a public/CDN base
 * URL, or V4 signed URLs that the control plane renews before they expire).
 */
package dev.updraft.controlplane.storage;
