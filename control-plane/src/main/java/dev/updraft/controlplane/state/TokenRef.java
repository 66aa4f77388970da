package dev.updraft.controlplane.state;

/** Where a token hash points: its app, id and role. */
public record TokenRef(String appId, String tokenId, String role) {}
