package dev.updraft.controlplane;

import com.google.cloud.storage.Storage;
import java.time.Clock;

/**
 * Test seams: the clock, a hook run after each commit (to simulate a crash before the answer), and a
 * GCS client (the in-memory {@code LocalStorageHelper}). Production uses {@link #NONE}.
 *
 * @param afterCommit nullable
 * @param gcs nullable: build the client from configuration
 * @param beforeSnapshotCommit nullable: runs after a snapshot's records are sent, before their commit (a
 *     crash in the middle of writing one)
 * @param renewalUrlsPerCommand the pre-signed URLs one renewal command renders at most; 0: the production value
 */
record Hooks(Clock clock, Runnable afterCommit, Storage gcs, Runnable beforeSnapshotCommit, int renewalUrlsPerCommand) {
  static final Hooks NONE = new Hooks(Clock.systemUTC(), null, null);

  Hooks(Clock clock, Runnable afterCommit, Storage gcs) {
    this(clock, afterCommit, gcs, null);
  }

  Hooks(Clock clock, Runnable afterCommit, Storage gcs, Runnable beforeSnapshotCommit) {
    this(clock, afterCommit, gcs, beforeSnapshotCommit, 0);
  }
}
