package dev.updraft.controlplane;

import com.google.api.core.ApiClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand; also usable as the GCS client's clock. Thread-safe. */
final class MutableClock extends Clock implements ApiClock {
  private final AtomicReference<Instant> now;

  MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public long nanoTime() {
    return TimeUnit.MILLISECONDS.toNanos(now.get().toEpochMilli());
  }

  @Override
  public long millisTime() {
    return now.get().toEpochMilli();
  }
}
