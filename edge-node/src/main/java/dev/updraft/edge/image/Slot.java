package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;

/**
 * The answer material for one (branch, runtime version, platform): its entries newest first, from the
 * head down, and, when the head is under a per-update rollout, the rollout's id, bucketing algorithm and
 * percentage and the entries from the rollout's control down (what devices outside it get). Each list
 * holds at most {@link Resolver#FALLBACK_DEPTH} entries: enough for a device that reported every entry
 * above the one it should get failed (clients report at most five). Immutable.
 */
final class Slot {
  /** Newest first; never empty: {@code fromHead[0]} is the head. */
  final Prepared[] fromHead;
  /** Null when the head is not under a running per-update rollout. */
  final String rolloutId;
  /** The rollout's algorithm; null when there is no rollout or this build does not know it (none inside). */
  final Bucketing.Algorithm bucketing;
  final int percentage;
  /** From the control entry down, newest first; null: devices outside the rollout get no update from this branch. */
  final Prepared[] fromControl;

  Slot(Prepared[] fromHead, String rolloutId, Bucketing.Algorithm bucketing, int percentage, Prepared[] fromControl) {
    this.fromHead = fromHead;
    this.rolloutId = rolloutId;
    this.bucketing = bucketing;
    this.percentage = percentage;
    this.fromControl = fromControl;
  }

  /** The newest entry. */
  Prepared head() {
    return fromHead[0];
  }

  /** The control entry, or null. */
  Prepared control() {
    return fromControl == null ? null : fromControl[0];
  }
}
