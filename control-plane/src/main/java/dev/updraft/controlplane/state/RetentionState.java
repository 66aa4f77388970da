package dev.updraft.controlplane.state;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * What an app keeps: its pinned groups and its retention policies (the app's own, and per branch).
 * Immutable and persistent.
 *
 * @param pinned ids of the pinned groups (a retention policy never deletes them)
 * @param policies by branch; the app-wide policy under {@link #APP_WIDE}
 */
public record RetentionState(PSortedSet<String> pinned, PSortedMap<String, Policy> policies) {
  /** The key of the app-wide policy in {@link #policies} (never a branch name: branches are not empty). */
  public static final String APP_WIDE = "";

  public static final RetentionState EMPTY = new RetentionState(TreePSet.empty(), TreePMap.empty());

  public RetentionState {
    Objects.requireNonNull(pinned, "pinned");
    Objects.requireNonNull(policies, "policies");
  }

  /**
   * A retention policy.
   *
   * @param branch nullable: the app-wide policy
   * @param keep the newest groups kept per branch and runtime version
   * @param maxAge nullable: no age limit
   */
  public record Policy(String branch, int keep, Duration maxAge, Instant setAt, String setBy) {}

  public boolean isPinned(String groupId) {
    return pinned.contains(groupId);
  }

  /** The policy that applies to {@code branch}: its own, else the app's; null when none. */
  public Policy policyFor(String branch) {
    Policy own = policies.get(branch);
    return own != null ? own : policies.get(APP_WIDE);
  }

  RetentionState withPin(String groupId, boolean pin) {
    return new RetentionState(pin ? pinned.plus(groupId) : pinned.minus(groupId), policies);
  }

  RetentionState withPolicy(String branch, Policy p) {
    String key = branch == null ? APP_WIDE : branch;
    return new RetentionState(pinned, p == null ? policies.minus(key) : policies.plus(key, p));
  }
}
