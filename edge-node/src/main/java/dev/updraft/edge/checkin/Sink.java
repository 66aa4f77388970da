package dev.updraft.edge.checkin;

import dev.updraft.events.CheckIn;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where the sender thread puts check-ins. {@link #send} may block (it runs on the sender thread, never
 * on an event loop) and reports the delivery to its lane's consumer ({@link #deliveries}): null on success, the
 * failure otherwise.
 */
interface Sink {
  /**
   * Sends {@code c} from {@code lane} ({@link CheckInEmitter#DEVICE} or {@link CheckInEmitter#WARMUP}): the
   * warm-up's marked as such ({@code Topics.WARMUP_HEADER}: readers skip it), sent all the same so that the
   * warm-up runs the whole path to Kafka.
   */
  void send(CheckIn c, int lane);

  /**
   * Told once, before the first {@link #send}, where each lane's deliveries are reported, so that a sink can
   * prepare what it hands its producer instead of making it on a first call (a branch the JIT then sees taken
   * only in the interpreter, and compiles as never taken).
   */
  void deliveries(List<Consumer<Exception>> byLane);

  /** Delivers what was accepted, waiting at most {@code timeout}; what is left is failed. */
  void close(Duration timeout);
}
