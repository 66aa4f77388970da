package dev.updraft.controlplane.history;

import dev.updraft.controlplane.state.GroupState;

/**
 * An update group as the history projection stored it: shown with its stored fields when the control plane
 * no longer holds it (bodies as published: renewals and re-signing reach only the groups still held).
 *
 * @param pinned whether the last pin event of the group pinned it
 */
public record StoredGroup(GroupState group, boolean pinned) {
  public String groupId() {
    return group.groupId();
  }
}
