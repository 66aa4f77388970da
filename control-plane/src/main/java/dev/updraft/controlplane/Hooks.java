package dev.updraft.controlplane;

import com.google.cloud.storage.Storage;
import java.time.Clock;

/**
 * Test seams: the clock, a hook run after each commit (to simulate a crash before the answer), and a
 * GCS client (the in-memory {@code LocalStorageHelper}). Production uses {@link #NONE}.
 *
 * @param afterCommit nullable
 * @param gcs nullable: build the client from configuration
 */
record Hooks(Clock clock, Runnable afterCommit, Storage gcs) {
  static final Hooks NONE = new Hooks(Clock.systemUTC(), null, null);
}
