package dev.updraft.common.loop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LoopAgent} on the calling thread until {@link #stop()} (after Agrona's {@code AgentRunner}): a duty
 * cycle, then the {@link IdleStrategy} when it did no work. One error policy for every loop: a failed cycle is counted
 * ({@link #errors()}), logged with the loop's name (the first of a run of failures with its stack trace, the next
 * ones on one line with how many failed in a row; a refusal once per reason, see {@link LoopAgent#refusal}), handed to {@link LoopAgent#recover}, and followed by the {@link ErrorBackoff} wait, cut
 * short by a stop. An {@link Error} ends the loop at once as a crash (nothing more is written: a simulated crash in a
 * test, or the VM's); an interrupt stops it as {@link #stop()} does.
 *
 * <p>{@link #stop()}, {@link #exited()}, {@link #errors()} and {@link #stopping()} are thread-safe; {@link #run()}
 * runs once, on the loop's thread.
 */
public final class LoopRunner implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(LoopRunner.class);
  /** A backoff is waited in slices of at most this, so that a stop ends it soon. */
  static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final LoopAgent agent;
  private final IdleStrategy idle;
  private final ErrorBackoff backoff;
  private final LoopClock clock;
  private final CompletableFuture<Void> exited = new CompletableFuture<>();
  private volatile boolean stopping;
  private volatile long errors;
  // loop thread only
  private int inARow;
  private String lastRefusal;

  public LoopRunner(LoopAgent agent, IdleStrategy idle, ErrorBackoff backoff, LoopClock clock) {
    this.agent = agent;
    this.idle = idle;
    this.backoff = backoff;
    this.clock = clock;
  }

  /** Asks the loop to stop after its current cycle (waking up a blocking call); returns at once. */
  public void stop() {
    stopping = true;
    if (!exited.isDone()) {
      try {
        agent.wake();
      } catch (RuntimeException e) {
        LOG.debug("waking up {}: {}", agent.name(), e.toString());
      }
    }
  }

  /** Whether {@link #stop()} was called (or the thread interrupted). */
  public boolean stopping() {
    return stopping;
  }

  /** Failed duty cycles since the start. */
  public long errors() {
    return errors;
  }

  /** Completed when {@link #run()} has returned: normally, or exceptionally with the crash that ended it. */
  public CompletableFuture<Void> exited() {
    return exited;
  }

  @Override
  public void run() {
    Throwable crash = null;
    try {
      agent.onStart();
      while (!stopping) {
        cycle();
      }
      agent.onStop();
    } catch (Error | RuntimeException e) {
      crash = e; // a RuntimeException here came from onStart or onStop: the loop cannot go on either
    } finally {
      try {
        agent.onClose(crash);
      } catch (RuntimeException e) {
        LOG.warn("{}: closing failed: {}", agent.name(), e.toString(), e);
      }
      if (crash == null) {
        exited.complete(null);
      } else {
        LOG.error("{} stopped abruptly", agent.name(), crash);
        exited.completeExceptionally(crash);
      }
    }
  }

  private void cycle() {
    int work;
    try {
      work = agent.doWork();
    } catch (RuntimeException e) {
      failed(e);
      return;
    }
    inARow = 0;
    lastRefusal = null;
    try {
      idle.idle(clock, work);
    } catch (InterruptedException e) {
      interrupted();
    }
  }

  private void failed(RuntimeException e) {
    errors++;
    inARow++;
    String refused = agent.refusal(e);
    if (refused == null && inARow == 1) {
      LOG.error("{} failed (errors={}); recovering and retrying", agent.name(), errors, e);
    } else if (refused == null) {
      LOG.warn("{} failed again (in a row={}, errors={}): {}; retrying", agent.name(), inARow, errors, e.toString()); // no stack-trace loop
    } else if (!refused.equals(lastRefusal)) {
      LOG.error("{}: {}; retrying", agent.name(), refused); // one line per cause while it lasts, no stack-trace loop
    }
    lastRefusal = refused;
    try {
      agent.recover(e);
    } catch (RuntimeException again) {
      LOG.warn("{}: recovering failed: {}", agent.name(), again.toString());
    }
    waitBackoff();
  }

  /** Waits the backoff after the current run of failures, in slices, returning early on a stop. */
  private void waitBackoff() {
    long until = clock.nanoTime() + backoff.nanos(inARow);
    long left;
    while (!stopping && (left = until - clock.nanoTime()) > 0) {
      try {
        clock.sleep(Math.min(SLICE_NANOS, left));
      } catch (InterruptedException e) {
        interrupted();
      }
    }
  }

  private void interrupted() {
    Thread.currentThread().interrupt();
    stopping = true;
  }
}
