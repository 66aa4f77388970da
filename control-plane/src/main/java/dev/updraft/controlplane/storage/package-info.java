/**
 * Content-addressed asset storage: bytes stored once per app under their SHA-256, never changed. Local
 * (a directory served by the control plane's asset route), Google Cloud Storage, S3 and S3-compatible
 * stores, or Azure Blob Storage (a public/CDN base URL, or signed/presigned/SAS URLs that the control plane
 * renews before they expire). Every backend lists and deletes, for pruning.
 */
package dev.updraft.controlplane.storage;
