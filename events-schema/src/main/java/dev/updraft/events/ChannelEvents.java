package dev.updraft.events;

/**
 * Channels and branches: which branch a channel serves, and deleting either. The events {@link ChannelMapped},
 * {@link ChannelDeleted}, {@link BranchDeleted}, and the values they carry ({@link BranchRollout}).
 *
 * <p>A namespace of {@link EventPayload}, which extends it: each record is also named {@code EventPayload.<Name>}
 * (imports use this interface's name). Records immutable.
 */
public interface ChannelEvents {
  /**
   * Maps a channel to a branch, optionally with a second branch for a share of devices. Replaces any
   * earlier mapping of that channel. A channel never mapped serves the branch of the same name.
   *
   * @param rollout nullable: no branch rollout
   * @param paused nullable, absent meaning served; {@code true}: every device asking for the channel is
   *     answered "no update" (no update, no roll back) until a mapping without it (a kill switch)
   */
  record ChannelMapped(String channel, String branch, BranchRollout rollout, Boolean paused) implements EventPayload {
    public ChannelMapped(String channel, String branch, BranchRollout rollout) {
      this(channel, branch, rollout, null);
    }

    public boolean pausedNow() {
      return Boolean.TRUE.equals(paused);
    }

    /** The same mapping (branch, rollout and its buckets) paused or served (written without the field). */
    public ChannelMapped withPaused(boolean pause) {
      return new ChannelMapped(channel, branch, rollout, pause ? Boolean.TRUE : null);
    }
  }

  /**
   * A share of a channel's devices served from a second branch.
   *
   * @param percentage 0..100 of devices, bucketed by client id with {@code rolloutId} as the salt
   * @param runtimeVersion nullable: applies to every runtime version
   * @param bucketing nullable: the {@link Bucketing.Algorithm#wireName()} the rollout buckets devices
   *     with; absent in events written before the field, meaning {@code sha256-v1}. A rollout keeps the
   *     algorithm it started with: a mapping that keeps {@code rolloutId} keeps {@code bucketing}.
   */
  record BranchRollout(String rolloutId, String branch, int percentage, String runtimeVersion, String bucketing) {
    /** A new branch rollout bucketed with {@link Bucketing#CURRENT}. */
    public BranchRollout(String rolloutId, String branch, int percentage, String runtimeVersion) {
      this(rolloutId, branch, percentage, runtimeVersion, Bucketing.CURRENT.wireName());
    }

    /**
     * The same rollout (id, second branch, runtime version and bucketing) at another share: what a
     * mapping that keeps this rollout writes, so that its devices keep their buckets.
     */
    public BranchRollout withPercentage(int newPercentage) {
      return new BranchRollout(rolloutId, branch, newPercentage, runtimeVersion, bucketing);
    }
  }

  /**
   * A channel's mapping is removed: the channel serves the branch of the same name again, as a channel never
   * mapped does; when it was the app's default channel, requests without a channel are refused again.
   */
  record ChannelDeleted(String channel) implements EventPayload {}

  /**
   * A branch leaves the app with every group on it (every runtime version). No channel maps to it when it
   * is deleted (the command refuses otherwise); its retention policy goes with it.
   */
  record BranchDeleted(String branch) implements EventPayload {}
}
