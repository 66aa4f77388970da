package dev.updraft.controlplane.state;

import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.Collections;

/**
 * An update group as it stands: the group as published, with each platform's current body and
 * signature (renewals and key registrations replace them; ids and {@code createdAt} never change).
 *
 * @param renderedAt per update id, when its current body was rendered (pre-signed URLs expire from then)
 * @param rollout nullable: not a per-update rollout
 * @param revertedBy nullable: the group that replaced this one when its rollout was reverted
 */
public record GroupState(
    UpdateGroup group,
    long sequence,
    Instant publishedAt,
    String actor,
    Map<String, Instant> renderedAt,
    RolloutState rollout,
    String revertedBy) {

  public GroupState {
    renderedAt = Collections.unmodifiableMap(new TreeMap<>(renderedAt));
  }

  public String groupId() {
    return group.groupId();
  }

  public boolean reverted() {
    return revertedBy != null;
  }

  /** The current entry for {@code platform}, or null. */
  public PlatformUpdate platform(String platform) {
    return group.platform(platform);
  }

  /** The {@code createdAt} shared by the group's entries (or null for an empty group). */
  public String createdAt() {
    return group.platforms().isEmpty() ? null : group.platforms().get(0).createdAt();
  }
}
