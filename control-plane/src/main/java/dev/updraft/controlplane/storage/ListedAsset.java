package dev.updraft.controlplane.storage;

import java.time.Instant;

/**
 * One stored asset as a listing shows it, for pruning: its address, its size in bytes and when it was
 * stored (the backend's modification time).
 */
public record ListedAsset(String sha256Hex, long size, Instant storedAt) {}
