package dev.updraft.edge.image;

import dev.updraft.events.UpdateEvents.UpdateGroup;

/**
 * What the log says about one update group now: the group as published (bodies replaced by renewals),
 * its per-update rollout's current percentage, and whether that rollout is still running.
 *
 * @param rolloutPercentage the current percentage (100 when the group has no rollout)
 * @param rolloutActive the group was published with a rollout that has neither finished nor been reverted
 * @param reverted the group's rollout was reverted: it is no longer served
 */
record GroupState(UpdateGroup group, int rolloutPercentage, boolean rolloutActive, boolean reverted) {

  static GroupState published(UpdateGroup g) {
    boolean rollout = g.rollout() != null;
    return new GroupState(g, rollout ? g.rollout().percentage() : 100, rollout, false);
  }

  GroupState withGroup(UpdateGroup g) {
    return new GroupState(g, rolloutPercentage, rolloutActive, reverted);
  }

  GroupState withPercentage(int p) {
    return new GroupState(group, p, rolloutActive, reverted);
  }

  GroupState finished() {
    return new GroupState(group, 100, false, reverted);
  }

  /** The group reverted: never served again, so its bodies are not held any more (nor its share: 0). */
  GroupState revertedState() {
    java.util.List<dev.updraft.events.EventPayload.PlatformUpdate> bare = new java.util.ArrayList<>();
    for (dev.updraft.events.EventPayload.PlatformUpdate u : group.platforms()) {
      bare.add(u.body() == null ? u : bare(u));
    }
    return new GroupState(group.withPlatforms(bare), 0, false, true);
  }

  /**
   * An entry as the image keeps it once prepared: its ids and signatures (a re-preparation under another key
   * ring starts from them; the primary signature only when it is the only one), without the body the prepared
   * entry holds and the asset keys the edge never reads.
   */
  static dev.updraft.events.EventPayload.PlatformUpdate bare(dev.updraft.events.EventPayload.PlatformUpdate u) {
    return new dev.updraft.events.EventPayload.PlatformUpdate(u.platform(), u.updateId(), u.createdAt(), null,
        u.signatures().isEmpty() ? u.signature() : null, null, java.util.List.of(), u.signatures());
  }
}
