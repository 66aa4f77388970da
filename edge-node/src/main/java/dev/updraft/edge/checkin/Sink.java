package dev.updraft.edge.checkin;

import dev.updraft.events.CheckIn;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Where the sender thread puts check-ins. {@link #send} may block (it runs on the sender thread, never
 * on an event loop) and reports the delivery to {@code done}: null on success, the failure otherwise.
 */
interface Sink {
  void send(CheckIn c, Consumer<Exception> done);

  /**
   * Encodes {@code c} as {@link #send} would and drops it (the edge's warm-up: the code is exercised, nothing
   * is sent). Any thread.
   */
  default void exercise(CheckIn c) {}

  /** Delivers what was accepted, waiting at most {@code timeout}; what is left is failed. */
  void close(Duration timeout);
}
