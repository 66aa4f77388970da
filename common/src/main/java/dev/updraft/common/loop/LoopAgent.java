package dev.updraft.common.loop;

/**
 * The work of one dedicated loop, run by a {@link LoopRunner} on its thread: the runner calls {@link #onStart()} once,
 * then {@link #doWork()} until stopped, then {@link #onStop()} (a normal stop) and always {@link #onClose(Throwable)}.
 * Every method but {@link #wake()} runs on the loop's thread.
 */
public interface LoopAgent {
  /** Names the loop with its ids (for example the topic it reads), for logs and the thread's name. */
  String name();

  /** Before the first duty cycle (subscribe, open). */
  default void onStart() {}

  /**
   * One duty cycle. A call that blocks (a Kafka poll) is this agent's own idling; a blocking call woken up by
   * {@link #wake()} returns 0 here (the agent catches the wakeup).
   *
   * @return how much work was done; 0 lets the runner's {@link IdleStrategy} idle
   * @throws RuntimeException any failure: the runner logs and counts it, calls {@link #recover}, backs off, and
   *     runs the next cycle
   */
  int doWork();

  /**
   * After a failed duty cycle, before the backoff: puts the agent back where its next cycle can work (for example
   * re-reads its positions from where they are stored). An exception here is logged and the loop goes on.
   */
  default void recover(RuntimeException e) {}

  /**
   * A short reason when {@code e} is an expected, lasting refusal (credentials, an ACL), logged once per reason
   * without a stack trace while it lasts; null (the default) logs {@code e} with its stack trace.
   */
  default String refusal(RuntimeException e) {
    return null;
  }

  /** After the last cycle of a normal stop (not after a crash): write what is held. */
  default void onStop() {}

  /**
   * Always last, on the loop's thread.
   *
   * @param crash null on a normal stop; else the {@link Error} (or the failure of {@link #onStart()}) that ended the
   *     loop: nothing more may be written
   */
  default void onClose(Throwable crash) {}

  /** Called by {@link LoopRunner#stop()} on the stopping thread: wakes up a blocking call (a consumer's wakeup). */
  default void wake() {}
}
