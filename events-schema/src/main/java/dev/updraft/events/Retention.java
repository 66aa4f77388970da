package dev.updraft.events;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one rule for which update groups an edge or the control plane holds, so that state grows with what
 * is live, not with history. A group is held while
 *
 * <ul>
 *   <li>it is among the newest {@code window} groups published on its line (branch and runtime version),
 *       reverted ones counting toward the window although they are never served, or
 *   <li>it is the control group of a running per-update rollout whose group is in that window, or
 *   <li>it is pinned (a parameter: what pins a group is decided elsewhere).
 * </ul>
 *
 * <p>Both folds apply it after every event to each line the event touched, and drop the groups it no
 * longer holds, for good: the state is then a function of the event sequence alone, whatever the batches
 * (a replay from offset 0 and a snapshot followed by the tail give equal states). The rule is monotone in
 * {@code window}: everything held with a window of W is held with any W' &ge; W, so pruning a state kept
 * with W' to W gives the state kept with W all along. That is why an edge may load a control-plane
 * snapshot ({@link #CONTROL_PLANE_WINDOW}) and prune it to {@link #EDGE_WINDOW}.
 *
 * <p>The edge's window is {@link FailedUpdates#DEPTH} plus one: a device reports at most five failed ids,
 * so the answer to any request is among the six entries from where its walk starts, the head or, outside a
 * running per-update rollout, its control group, which is the group published before the rollout's (the
 * second newest of the line): seven groups cover both walks. Corner case: reverted groups count toward the
 * window, so when some of the newest seven are reverted, a device that reported every other entry failed
 * gets fewer fall-back entries (it is then told there is no update, as when the line has no older entry);
 * the same holds for the rare control group that was not the second newest (an older entry of one
 * platform when the newest groups lack that platform).
 */
public final class Retention {
  /** Groups per line an edge holds: every entry the failed-update fallback can answer with, from the head or a control. */
  public static final int EDGE_WINDOW = FailedUpdates.DEPTH + 1;
  /** Groups per line the control plane holds: the edge's and what its commands need (rollbacks, renewals). */
  public static final int CONTROL_PLANE_WINDOW = 10;

  private Retention() {}

  /**
   * One group of a line as the rule sees it.
   *
   * @param controlGroupId nullable: the control group of the group's per-update rollout
   * @param rolloutRunning the group's per-update rollout is running (neither finished nor reverted)
   */
  public record Entry(String groupId, boolean rolloutRunning, String controlGroupId) {}

  /**
   * The ids held among one line's groups.
   *
   * @param newestFirst the line's groups still held before the event, and any the event added, newest
   *     first (reverted ones included)
   * @param pinned whether a group is pinned (held whatever its age)
   */
  public static Set<String> held(List<Entry> newestFirst, int window, Predicate<String> pinned) {
    if (window < 1) {
      throw new IllegalArgumentException("window must be at least 1: window=" + window);
    }
    Set<String> out = new HashSet<>();
    for (int i = 0; i < newestFirst.size(); i++) {
      Entry e = newestFirst.get(i);
      if (i < window) {
        out.add(e.groupId());
        if (e.rolloutRunning() && e.controlGroupId() != null) {
          out.add(e.controlGroupId());
        }
      } else if (pinned.test(e.groupId())) {
        out.add(e.groupId());
      }
    }
    return out;
  }

  /** {@link #held(List, int, Predicate)} with nothing pinned. */
  public static Set<String> held(List<Entry> newestFirst, int window) {
    return held(newestFirst, window, id -> false);
  }
}
