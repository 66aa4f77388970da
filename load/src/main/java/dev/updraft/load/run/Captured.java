package dev.updraft.load.run;

import java.util.Map;

/** A response captured during discovery, served again by the baseline server. */
public record Captured(int status, Map<String, String> headers, byte[] body) {}
