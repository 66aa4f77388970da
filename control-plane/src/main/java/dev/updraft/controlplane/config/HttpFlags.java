package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.AUTH_FAILURE_LIMIT;
import static dev.updraft.controlplane.config.ControlPlaneFlags.AUTH_FAILURE_WINDOW;
import static dev.updraft.controlplane.config.ControlPlaneFlags.CORS_ORIGIN;
import static dev.updraft.controlplane.config.ControlPlaneFlags.HEADER_TIMEOUT;
import static dev.updraft.controlplane.config.ControlPlaneFlags.IDLE_TIMEOUT;
import static dev.updraft.controlplane.config.ControlPlaneFlags.MAX_ASSET_BYTES;
import static dev.updraft.controlplane.config.ControlPlaneFlags.MAX_REQUEST_BYTES;
import static dev.updraft.controlplane.config.ControlPlaneFlags.TLS_CERT;
import static dev.updraft.controlplane.config.ControlPlaneFlags.TLS_KEY;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The control port's transport: how long a client may take, as the edges do ({@code --header-timeout} for a
 * request head, then 408; {@code --idle-timeout} for a connection over which no byte moves either way, kept above
 * the 2 minutes a command may wait for Kafka so that a client is not cut off from a publish that still commits),
 * HTTPS ({@code --tls-cert} with {@code --tls-key}, checked at start), CORS ({@code --cors-origin}), the
 * invalid-token throttle ({@code --auth-failure-limit} per {@code --auth-failure-window}) and the body limits
 * ({@code --max-request-bytes}, {@code --max-asset-bytes}: 413 beyond). Validated with the rest of
 * {@link ControlPlaneConfig}. Immutable.
 *
 * @param tlsCert nullable: plain HTTP
 * @param tlsKey nullable: plain HTTP
 * @param corsOrigins empty: no CORS headers at all
 * @param authFailureLimit 0: unlimited
 */
public record HttpFlags(
    Duration headerTimeout, Duration idleTimeout, Path tlsCert, Path tlsKey, List<String> corsOrigins, int authFailureLimit,
    Duration authFailureWindow, long maxRequestBytes, long maxAssetBytes) {

  /** The largest request head (request line and headers) the control port reads: 431 beyond. */
  public static final int MAX_HEADER_BYTES = 8 * 1024;

  /** The longest request line (method, target, version) the control port reads: 414 beyond. */
  public static final int MAX_REQUEST_LINE_BYTES = 4096;

  static HttpFlags from(Settings s) {
    Path cert = TLS_CERT.read(s);
    Path key = TLS_KEY.read(s);
    if ((cert == null) != (key == null)) {
      throw new ConfigException(
          "--tls-cert (UPDRAFT_TLS_CERT) and --tls-key (UPDRAFT_TLS_KEY) go together: give both PEM files for HTTPS, or neither for plain HTTP (only "
              + (cert == null ? "--tls-key" : "--tls-cert") + " was given)");
    }
    cert = cert == null ? null : cert.toAbsolutePath().normalize();
    key = key == null ? null : key.toAbsolutePath().normalize();
    if (cert != null) {
      TlsFiles.load(cert, key); // fails with a ConfigException naming the file and the problem
    }
    return new HttpFlags(HEADER_TIMEOUT.read(s), IDLE_TIMEOUT.read(s), cert, key, CorsOrigins.parse(CORS_ORIGIN.read(s)),
        AUTH_FAILURE_LIMIT.read(s), AUTH_FAILURE_WINDOW.read(s), MAX_REQUEST_BYTES.read(s), MAX_ASSET_BYTES.read(s));
  }

  /** Whether the control port speaks HTTPS. */
  public boolean tls() {
    return tlsCert != null;
  }
}
