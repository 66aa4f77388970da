package dev.updraft.controlplane.storage;

/** What storage knows about stored bytes: their SHA-256 (the address), MD5 (the manifest key) and size. */
public record StoredAsset(String sha256Hex, String md5Hex, long size) {}
