package dev.updraft.common.loop;

/** What a {@link LoopRunner} does after a duty cycle that did no work. */
public interface IdleStrategy {
  /** Nothing: the agent idles in its own blocking call (a Kafka poll with a timeout). */
  IdleStrategy NONE = (clock, work) -> {};

  /**
   * After a cycle that did {@code work} (0: none).
   *
   * @throws InterruptedException the thread was interrupted: the runner stops
   */
  void idle(LoopClock clock, int work) throws InterruptedException;

  /** Sleeps {@code nanos} after every cycle without work. */
  static IdleStrategy sleeping(long nanos) {
    if (nanos <= 0) {
      throw new IllegalArgumentException("idle sleep must be positive: nanos=" + nanos);
    }
    return (clock, work) -> {
      if (work <= 0) {
        clock.sleep(nanos);
      }
    };
  }
}
