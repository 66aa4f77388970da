package dev.updraft.controlplane.api;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.history.HistoryReads;
import dev.updraft.controlplane.history.StoredGroup;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The update groups the read API shows: the groups the control plane holds (authoritative: what is served
 * now, including a group published a moment ago) merged with the older ones of the history projection in
 * PostgreSQL, shown with their stored fields.
 *
 * <p>A read first waits (a little: {@link HistoryReads#CATCH_UP_WAIT}) for the projection to reach the app's
 * last sequence when the projection knows the app. Still behind, a stored group that the control plane
 * would still hold unless it was deleted (its line holds an older group) is left out: it may have been
 * deleted since. When PostgreSQL cannot be used, lists show the held groups only (counted in
 * {@code updraft_control_history_unavailable_total}) and a group not held is a 404 whose message says the
 * older groups cannot be looked up now.
 */
final class GroupReads {
  private final HistoryReads history;

  GroupReads(HistoryReads history) {
    this.history = history;
  }

  /** The newest {@code limit} groups below {@code cursor} (null: from the newest), one more to tell whether more follow. */
  Future<List<GroupState>> page(AppState a, String branch, String runtime, Long cursor, int limit) {
    List<GroupState> held = new ArrayList<>();
    for (GroupState g : a.groupsNewestFirst(branch, runtime)) {
      if (cursor != null && g.sequence() >= cursor) {
        continue;
      }
      if (held.size() > limit) {
        break;
      }
      held.add(g);
    }
    return history.awaitCaughtUp(a.appId(), a.createdAt(), a.lastSequence(), false)
        .compose(caughtUp -> history.groups(a.appId(), a.createdAt(), branch, runtime, cursor, limit + 1)
            .map(stored -> merge(a, held, stored, caughtUp, limit + 1)))
        .recover(t -> {
          if (t instanceof CommandException && ((CommandException) t).status() == 503) {
            history.degraded(t);
            return Future.succeededFuture(held);
          }
          return Future.failedFuture(t);
        });
  }

  /**
   * The newest {@code n} of the held groups and the stored ones (each group once, as held when it is), newest
   * first. The newest {@code n} of a union are among the newest {@code n} of each side, so each side needs
   * no more than {@code n}.
   */
  static List<GroupState> merge(AppState a, List<GroupState> held, List<StoredGroup> stored, boolean caughtUp, int n) {
    Set<String> ids = new HashSet<>();
    List<GroupState> out = new ArrayList<>(held);
    for (GroupState g : held) {
      ids.add(g.groupId());
    }
    for (StoredGroup s : stored) {
      if (!ids.contains(s.groupId()) && a.group(s.groupId()) == null && (caughtUp || !maybeDeleted(a, s.group()))) {
        out.add(s.group());
      }
    }
    out.sort(Comparator.comparingLong(GroupState::sequence).reversed());
    return out.size() > n ? out.subList(0, n) : out;
  }

  /** Whether a stored group not held may have been deleted after the projection's position: its line holds an older group. */
  static boolean maybeDeleted(AppState a, GroupState stored) {
    List<GroupState> line = a.groupsNewestFirst(stored.group().branch(), stored.group().runtimeVersion());
    return !line.isEmpty() && line.get(line.size() - 1).sequence() < stored.sequence();
  }

  /** The group {@code groupId}: held, or stored (null when neither; 404 saying why when PostgreSQL cannot be used). */
  Future<GroupState> find(AppState a, String groupId) {
    GroupState g = groupId == null ? null : a.group(groupId);
    if (g != null || groupId == null) {
      return Future.succeededFuture(g);
    }
    return stored(a, groupId).map(s -> s == null ? null : s.group());
  }

  /**
   * The stored group {@code groupId} the control plane does not hold, or null (also when it may have been
   * deleted since); when PostgreSQL cannot be used, 404 {@code update-not-found} saying so (as before the
   * history existed: the control plane knows the groups it holds only).
   */
  Future<StoredGroup> stored(AppState a, String groupId) {
    return history.awaitCaughtUp(a.appId(), a.createdAt(), a.lastSequence(), false)
        .compose(caughtUp -> history.group(a.appId(), a.createdAt(), groupId)
            .map(s -> s == null || (!caughtUp && maybeDeleted(a, s.group())) ? null : s))
        .recover(t -> {
          if (t instanceof CommandException && ((CommandException) t).status() == 503) {
            history.degraded(t);
            return Future.failedFuture(CommandException.notFound("update-not-found", "app " + a.appId() + " has no update group "
                + groupId + " among the groups this control plane holds, and older groups cannot be looked up now: " + t.getMessage()));
          }
          return Future.failedFuture(t);
        });
  }
}
