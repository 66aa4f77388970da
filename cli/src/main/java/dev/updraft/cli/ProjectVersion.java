package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.common.ExpoUpdatesVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The expo-updates version an Expo project installs, read from {@code node_modules/expo-updates/package.json}. */
final class ProjectVersion {
  /** How many directories above a start one are looked at (a bundle sits a few levels inside its project). */
  private static final int UP = 12;

  private ProjectVersion() {}

  /** The version found first from {@code starts} (each and the directories above it), or null when none is readable. */
  static String expoUpdates(Path... starts) {
    for (Path start : starts) {
      Path dir = start;
      for (int i = 0; dir != null && i <= UP; i++, dir = dir.getParent()) {
        Path pkg = dir.resolve("node_modules").resolve("expo-updates").resolve("package.json");
        if (Files.isRegularFile(pkg)) {
          try {
            JsonNode v = Api.JSON.readTree(Files.readString(pkg)).path("version");
            if (v.isTextual() && ExpoUpdatesVersion.parse(v.asText()) != null) {
              return v.asText();
            }
          } catch (IOException e) {
            // unreadable: look further up
          }
        }
      }
    }
    return null;
  }
}
