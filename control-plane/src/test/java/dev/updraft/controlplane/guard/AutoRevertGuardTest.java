package dev.updraft.controlplane.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.spi.ActiveRollout;
import dev.updraft.controlplane.spi.RolloutControl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which instance acts, and which rollouts the guard looks at (the evaluation itself: {@code RolloutGuardEvaluatorIT}). */
class AutoRevertGuardTest {
  static final Instant T = Instant.parse("2026-03-10T12:00:00Z");

  /** Counts the calls; reverts nothing. */
  static class FakeRollouts implements RolloutControl {
    final AtomicInteger listed = new AtomicInteger();
    final List<String> reverted = new ArrayList<>();
    final List<ActiveRollout> active = new ArrayList<>();

    @Override
    public List<ActiveRollout> activeRollouts() {
      listed.incrementAndGet();
      return active;
    }

    @Override
    public Future<String> revertByGuard(String appId, String groupId, String reason) {
      reverted.add(groupId);
      return Future.succeededFuture("replacement");
    }
  }

  private static AutoRevertGuard guard(FakeRollouts rollouts, AtomicBoolean writer, SimpleMeterRegistry registry) {
    // no database: a pass that needs one would fail on the null evaluator, which these cases never reach
    return new AutoRevertGuard(null, rollouts, null, null, writer::get, registry, Clock.systemUTC(), Duration.ofSeconds(1));
  }

  @Test
  void onlyTheWriterLooksAtRollouts() {
    FakeRollouts rollouts = new FakeRollouts();
    AtomicBoolean writer = new AtomicBoolean(false);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AutoRevertGuard g = guard(rollouts, writer, registry);

    assertThat(g.pass().succeeded()).isTrue();
    assertThat(rollouts.listed).as("a fenced or starting instance does not even list rollouts").hasValue(0);
    assertThat(registry.get("updraft.guard.standby.passes").counter().count()).isEqualTo(1.0);
    assertThat(registry.get("updraft.guard.passes").counter().count()).isZero();

    writer.set(true);
    assertThat(g.pass().succeeded()).isTrue();
    assertThat(rollouts.listed).hasValue(1);
    assertThat(registry.get("updraft.guard.passes").counter().count()).isEqualTo(1.0);
  }

  @Test
  void leavesRolloutsWithoutAGuardAlone() {
    FakeRollouts rollouts = new FakeRollouts();
    rollouts.active.add(new ActiveRollout("shop", "g1", "r1", "main", "1.0.0", 10, null, null, Map.of("ios", "u1"), T, T));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AutoRevertGuard g = guard(rollouts, new AtomicBoolean(true), registry);

    assertThat(g.pass().succeeded()).isTrue();
    assertThat(rollouts.reverted).isEmpty();
    assertThat(registry.get("updraft.guard.evaluations").tag("verdict", "holds").counter().count()).isZero();
    assertThat(registry.get("updraft.guard.passes").counter().count()).isEqualTo(1.0);
  }

  @Test
  void aFailingListOfRolloutsIsCountedAndThePassEnds() {
    RolloutControl broken =
        new FakeRollouts() {
          @Override
          public List<ActiveRollout> activeRollouts() {
            throw new IllegalStateException("state unavailable");
          }
        };
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AutoRevertGuard g =
        new AutoRevertGuard(null, broken, null, null, () -> true, registry, Clock.systemUTC(), Duration.ofSeconds(1));
    assertThat(g.pass().succeeded()).isTrue();
    assertThat(registry.get("updraft.guard.errors").tag("stage", "evaluate").counter().count()).isEqualTo(1.0);
  }
}
