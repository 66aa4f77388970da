package dev.updraft.controlplane.insights;

import java.util.Objects;

/**
 * One platform's update of an update group.
 *
 * @param platform {@code ios} or {@code android}
 * @param updateId the manifest id of that platform's update
 */
public record UpdateRef(String platform, String updateId) {
  public UpdateRef {
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(updateId, "updateId");
  }
}
