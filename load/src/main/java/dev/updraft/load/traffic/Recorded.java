package dev.updraft.load.traffic;

import java.util.Map;

/** A recorded device request (one line of a {@code --record-requests} file). */
public record Recorded(long t, String path, String query, Map<String, String> headers) {}
