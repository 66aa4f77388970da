package dev.updraft.load.run;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** A response captured during discovery, served again by the baseline server and the warm-up's mirror. */
public record Captured(int status, Map<String, String> headers, byte[] body) {
  private static final Set<String> NOT_REPLAYED = Set.of("content-length", "transfer-encoding", "connection", "date", "keep-alive");

  /** Whether a server replaying a captured answer copies header {@code name} (not those it sets itself). */
  public static boolean replayed(String name) {
    return !NOT_REPLAYED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":");
  }

  /**
   * Which of a key's two captured answers a device running {@code currentId} gets: "no update" when it runs
   * the discovered {@code updateId} or nothing was published ({@code updateId} null), the manifest otherwise.
   */
  public static <T> T answerFor(String updateId, String currentId, T manifest, T noUpdate) {
    return updateId == null || updateId.equalsIgnoreCase(currentId) ? noUpdate : manifest;
  }
}
