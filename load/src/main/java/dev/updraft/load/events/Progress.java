package dev.updraft.load.events;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The progress line of a long generation: passes every event on to the sink and, at most once per
 * {@code everyNanos}, says how many events and publishes are written so far, of how many publishes, and
 * at what rate (a 1,000,000-publish log takes minutes, and a silent command looks hung). The clock is
 * read once per 1,024 events, not per event.
 */
final class Progress implements Consumer<EventEnvelope> {
  private final Consumer<EventEnvelope> sink;
  private final Consumer<String> out;
  private final long totalPublishes;
  private final LongSupplier nanos;
  private final long everyNanos;
  private final long start;
  private long nextReport;
  private long events;
  private long publishes;

  Progress(Consumer<EventEnvelope> sink, Consumer<String> out, long totalPublishes, LongSupplier nanos, long everyNanos) {
    this.sink = sink;
    this.out = out;
    this.totalPublishes = totalPublishes;
    this.nanos = nanos;
    this.everyNanos = everyNanos;
    this.start = nanos.getAsLong();
    this.nextReport = start + everyNanos;
  }

  @Override
  public void accept(EventEnvelope e) {
    sink.accept(e);
    events++;
    if (e.payload() instanceof EventPayload.UpdatePublished) {
      publishes++;
    }
    if ((events & 1023) == 0) {
      long now = nanos.getAsLong();
      if (now >= nextReport) {
        nextReport = now + everyNanos;
        out.accept(line(now));
      }
    }
  }

  /** The line for the state now (also the last one, once everything is written). */
  String line(long now) {
    double seconds = Math.max(1e-9, (now - start) / 1e9);
    return String.format(Locale.ROOT, "  %,d events, %,d of %,d publishes (%.0f %%) in %.0f s, %,.0f events/s",
        events, publishes, totalPublishes, totalPublishes == 0 ? 100.0 : publishes * 100.0 / totalPublishes,
        seconds, events / seconds);
  }

  long events() {
    return events;
  }
}
