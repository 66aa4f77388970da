package dev.updraft.launcher.backup;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress lines of a long copy, on stderr: at most one every {@link #EVERY_NANOS} while one partition is
 * copied ({@code backup: updraft.events partition 1: 12000 of 50000 offsets (24 %)}), so a cron log or a
 * terminal shows that it moves. Not thread-safe.
 */
final class Progress {
  static final long EVERY_NANOS = 2_000_000_000L;
  private final PrintStream err;
  private final String command;
  private long last = System.nanoTime();

  Progress(PrintStream err, String command) {
    this.err = err;
    this.command = command;
  }

  /** {@code done} of {@code total} {@code unit} of {@code what}; printed when the last line is old enough. */
  void tick(String what, long done, long total, String unit) {
    long now = System.nanoTime();
    if (now - last < EVERY_NANOS) {
      return;
    }
    last = now;
    line(what, done, total, unit);
  }

  /** The same line, now. */
  void line(String what, long done, long total, String unit) {
    int pct = total <= 0 ? 100 : (int) Math.min(100, done * 100 / total);
    err.println(String.format(Locale.ROOT, "%s: %s: %d of %d %s (%d %%)", command, what, done, total, unit, pct));
  }

  void say(String text) {
    err.println(command + ": " + text);
  }
}
