package dev.updraft.controlplane.config;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.time.Duration;
import java.util.Set;

/**
 * How long the control port lets a client take, as the edges do: {@code --header-timeout} [10s, 100ms..5m] for
 * a request head (from the connection's start, or from the first byte after a complete request; beyond it the
 * connection gets a 408 and is closed), {@code --idle-timeout} [3m, 1s..1h] for a connection over which no
 * byte moves either way (an upload that keeps sending is never cut). The idle timeout also runs while a request
 * is being handled, so its default is above the 2 minutes a command may wait for Kafka to take its events
 * (the producer's delivery timeout, as during a broker failover): a shorter one would cut the client off from
 * a publish that still commits. Validated with the rest of {@link ControlPlaneConfig}. Immutable.
 */
public record HttpFlags(Duration headerTimeout, Duration idleTimeout) {
  static final Set<String> NAMES = Set.of("header-timeout", "idle-timeout");

  /** The largest request head (request line and headers) the control port reads: 431 beyond. */
  public static final int MAX_HEADER_BYTES = 8 * 1024;

  /** The longest request line (method, target, version) the control port reads: 414 beyond. */
  public static final int MAX_REQUEST_LINE_BYTES = 4096;

  static HttpFlags from(Settings s) {
    Duration header = s.duration("header-timeout", Duration.ofSeconds(10));
    Duration idle = s.duration("idle-timeout", Duration.ofMinutes(3));
    if (header.toMillis() < 100 || header.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new ConfigException("--header-timeout (UPDRAFT_HEADER_TIMEOUT) must be between 100ms and 5m: got " + header);
    }
    if (idle.compareTo(Duration.ofSeconds(1)) < 0 || idle.compareTo(Duration.ofHours(1)) > 0) {
      throw new ConfigException("--idle-timeout (UPDRAFT_IDLE_TIMEOUT) must be between 1s and 1h: got " + idle);
    }
    return new HttpFlags(header, idle);
  }
}
