package dev.updraft.load;

import java.util.Map;

/** A recorded device request (one line of a {@code --record-requests} file). */
record Recorded(long t, String path, String query, Map<String, String> headers) {}
