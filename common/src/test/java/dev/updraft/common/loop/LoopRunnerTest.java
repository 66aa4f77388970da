package dev.updraft.common.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** The runner's idling, error backoff and stop, on a fake clock that moves forward when slept on (no real waiting). */
class LoopRunnerTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /** A clock whose time moves only when slept on; records each sleep. */
  static class FakeClock implements LoopClock {
    long now = -5_000 * MS; // nanoTime's origin is arbitrary, negative included
    final List<Long> sleeps = new ArrayList<>();
    Runnable onSleep = () -> {};

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
      sleeps.add(nanos);
      now += nanos;
      onSleep.run();
    }

    long slept() {
      return sleeps.stream().mapToLong(Long::longValue).sum();
    }
  }

  /** Runs a script of duty cycles, then asks its runner to stop; records the calls it gets. */
  static class ScriptedAgent implements LoopAgent {
    final Deque<IntSupplier> cycles = new ArrayDeque<>();
    final List<String> calls = new ArrayList<>();
    LoopRunner runner;

    ScriptedAgent then(IntSupplier cycle) {
      cycles.add(cycle);
      return this;
    }

    ScriptedAgent work(int n) {
      return then(() -> n);
    }

    ScriptedAgent fail(String why) {
      return then(() -> {
        throw new IllegalStateException(why);
      });
    }

    @Override
    public String name() {
      return "test loop id=7";
    }

    @Override
    public void onStart() {
      calls.add("start");
    }

    @Override
    public int doWork() {
      IntSupplier next = cycles.poll();
      if (next == null) {
        runner.stop();
        return 0;
      }
      calls.add("cycle");
      return next.getAsInt();
    }

    @Override
    public void recover(RuntimeException e) {
      calls.add("recover " + e.getMessage());
    }

    @Override
    public void onStop() {
      calls.add("stop");
    }

    @Override
    public void onClose(Throwable crash) {
      calls.add("close " + (crash == null ? "normally" : crash.getMessage()));
    }

    @Override
    public void wake() {
      calls.add("wake");
    }
  }

  private static LoopRunner runner(ScriptedAgent agent, IdleStrategy idle, FakeClock clock) {
    LoopRunner r = new LoopRunner(agent, idle, ErrorBackoff.DEFAULT, clock);
    agent.runner = r;
    return r;
  }

  @Test
  void idlesOnlyAfterCyclesThatDidNoWork() {
    FakeClock clock = new FakeClock();
    ScriptedAgent agent = new ScriptedAgent().work(0).work(3).work(0).work(1);
    LoopRunner r = runner(agent, IdleStrategy.sleeping(10 * MS), clock);

    r.run();

    // two empty cycles in the script, and the last one that asks to stop
    assertThat(clock.sleeps).containsExactly(10 * MS, 10 * MS, 10 * MS);
    assertThat(r.exited()).isCompleted();
    assertThat(r.errors()).isZero();
  }

  @Test
  void failedCyclesBackOffDoublingAndStartOverAfterASuccess() {
    FakeClock clock = new FakeClock();
    ScriptedAgent agent = new ScriptedAgent().fail("a").fail("b").fail("c").work(1).fail("d");
    LoopRunner r = runner(agent, IdleStrategy.NONE, clock);

    r.run();

    // 100 + 200 + 400 ms after three failures in a row, then 100 ms again after the one following a success
    assertThat(clock.slept()).isEqualTo(800 * MS);
    assertThat(clock.sleeps).allMatch(n -> n <= 100 * MS);
    assertThat(r.errors()).isEqualTo(4);
    assertThat(agent.calls).containsSubsequence("recover a", "recover b", "recover c", "cycle", "recover d", "stop", "close normally");
  }

  @Test
  void backoffIsCappedAtItsMaximum() {
    ErrorBackoff b = ErrorBackoff.DEFAULT;
    assertThat(b.nanos(1)).isEqualTo(100 * MS);
    assertThat(b.nanos(6)).isEqualTo(3_200 * MS);
    assertThat(b.nanos(7)).isEqualTo(5_000 * MS);
    assertThat(b.nanos(10_000)).isEqualTo(5_000 * MS);
  }

  @Test
  void aStopDuringTheBackoffEndsTheLoopAfterTheCurrentSlice() {
    FakeClock clock = new FakeClock();
    ScriptedAgent agent = new ScriptedAgent().fail("down").work(1);
    LoopRunner r = runner(agent, IdleStrategy.NONE, clock);
    clock.onSleep = r::stop;

    r.run();

    assertThat(clock.sleeps).containsExactly(100 * MS);
    assertThat(agent.calls).containsExactly("start", "cycle", "recover down", "wake", "stop", "close normally");
    assertThat(agent.cycles).hasSize(1); // the cycle after the failure never ran
    assertThat(r.exited()).isCompleted();
  }

  @Test
  void anErrorEndsTheLoopAtOnceWithoutTheNormalStop() {
    FakeClock clock = new FakeClock();
    ScriptedAgent agent = new ScriptedAgent().work(1).then(() -> {
      throw new AssertionError("simulated crash");
    }).work(1);
    LoopRunner r = runner(agent, IdleStrategy.NONE, clock);

    r.run();

    assertThat(agent.calls).containsExactly("start", "cycle", "cycle", "close simulated crash");
    assertThat(r.exited()).isCompletedExceptionally();
    try {
      r.exited().get();
    } catch (ExecutionException | InterruptedException e) {
      assertThat(e.getCause()).isInstanceOf(AssertionError.class).hasMessage("simulated crash");
    }
    assertThat(agent.cycles).hasSize(1);
  }

  @Test
  void anInterruptWhileIdlingStopsTheLoopAndKeepsTheFlag() {
    FakeClock clock = new FakeClock() {
      @Override
      public void sleep(long nanos) throws InterruptedException {
        throw new InterruptedException();
      }
    };
    ScriptedAgent agent = new ScriptedAgent().work(0).work(1);
    LoopRunner r = runner(agent, IdleStrategy.sleeping(MS), clock);

    try {
      r.run();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(agent.calls).containsExactly("start", "cycle", "stop", "close normally");
    assertThat(r.stopping()).isTrue();
  }

  @Test
  void aFailingRecoveryIsLoggedAndTheLoopGoesOn() {
    FakeClock clock = new FakeClock();
    ScriptedAgent agent = new ScriptedAgent() {
      @Override
      public void recover(RuntimeException e) {
        super.recover(e);
        throw new IllegalStateException("cannot recover");
      }
    }.fail("x").work(1);

    LoopRunner r = runner(agent, IdleStrategy.NONE, clock);
    r.run();

    assertThat(agent.calls).containsExactly("start", "cycle", "recover x", "cycle", "wake", "stop", "close normally");
    assertThat(r.errors()).isEqualTo(1);
  }
}
