package dev.updraft.events;

/**
 * What edges and the control plane agree on about updates devices report failed. A device lists at most
 * {@link #MAX_REPORTED} ids in {@code expo-recent-failed-update-ids} (expo-updates loads its five most
 * recent failed launches, {@code FileDownloader.getExtraHeadersForRemoteUpdateRequest}); an edge answers
 * it with the newest entry of its line it did not list, so the answer is one of the newest {@link #DEPTH}
 * entries from where its walk starts (the head, or a per-update rollout's control). Edges prepare that
 * many entries per line; the control plane keeps that many signed with every key and their asset URLs
 * fresh.
 */
public final class FailedUpdates {
  /** The most failed ids a client sends. */
  public static final int MAX_REPORTED = 5;
  /** Entries of a line, from where a device starts, that may be its answer. */
  public static final int DEPTH = MAX_REPORTED + 1;

  private FailedUpdates() {}
}
