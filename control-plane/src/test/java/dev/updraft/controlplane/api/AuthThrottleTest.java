package dev.updraft.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuthThrottleTest {
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final AuthThrottle throttle = new AuthThrottle(3, TimeUnit.SECONDS.toNanos(60), now::get);

  @Test
  void anAddressIsRefusedAfterTheLimitUntilItsWindowEnds() {
    for (int i = 0; i < 3; i++) {
      assertThat(throttle.retryAfterSeconds("10.0.0.1")).as("before failure %d", i + 1).isZero();
      throttle.failed("10.0.0.1");
    }
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isEqualTo(60);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(59_500));
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).as("half a second left, rounded up").isEqualTo(1);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isZero();
    throttle.failed("10.0.0.1");
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).as("a new window counts from one").isZero();
  }

  @Test
  void addressesAreCountedApart() {
    for (int i = 0; i < 3; i++) {
      throttle.failed("10.0.0.1");
    }
    throttle.failed("10.0.0.2");
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isPositive();
    assertThat(throttle.retryAfterSeconds("10.0.0.2")).isZero();
  }

  @Test
  void aLimitOfZeroTurnsItOff() {
    AuthThrottle off = new AuthThrottle(0, TimeUnit.SECONDS.toNanos(60), now::get);
    for (int i = 0; i < 100; i++) {
      off.failed("10.0.0.1");
    }
    assertThat(off.retryAfterSeconds("10.0.0.1")).isZero();
  }

  @Test
  void expiredAddressesMakeRoomWhenTheTableIsFull() {
    // a limit of 2 and one failure each: the table fills without an address reaching its limit (and logging it)
    AuthThrottle t = new AuthThrottle(2, TimeUnit.SECONDS.toNanos(1), now::get);
    for (int i = 0; i < AuthThrottle.MAX_SOURCES; i++) {
      t.failed("a" + i);
    }
    t.failed("late-while-full");
    t.failed("late-while-full");
    assertThat(t.retryAfterSeconds("late-while-full")).as("not tracked while the table is full").isZero();
    now.addAndGet(TimeUnit.SECONDS.toNanos(2));
    t.failed("late");
    t.failed("late");
    assertThat(t.retryAfterSeconds("late")).as("tracked once expired windows are dropped").isPositive();
  }
}
