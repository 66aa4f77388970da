package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;

/**
 * The answer material for one (branch, runtime version, platform): the newest entry and, when that
 * entry is under a per-update rollout, the rollout's id, bucketing algorithm and percentage and the
 * control entry served to devices outside it. Immutable.
 */
final class Slot {
  final Prepared head;
  /** Null when the head is not under a running per-update rollout. */
  final String rolloutId;
  /** The rollout's algorithm; null when there is no rollout or this build does not know it (none inside). */
  final Bucketing.Algorithm bucketing;
  final int percentage;
  /** Null: devices outside the rollout get no update from this branch. */
  final Prepared control;

  Slot(Prepared head, String rolloutId, Bucketing.Algorithm bucketing, int percentage, Prepared control) {
    this.head = head;
    this.rolloutId = rolloutId;
    this.bucketing = bucketing;
    this.percentage = percentage;
    this.control = control;
  }
}
