package dev.updraft.common;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;

/**
 * Who may read a service's {@code /metrics}, and where it is served, from {@code --metrics-token} (or
 * {@code --metrics-token-file}, a file holding it) and, on services that serve metrics on their public port,
 * {@code --metrics-port}. Without a token {@code /metrics} is public, as it always was; with one it needs
 * {@code Authorization: Bearer <token>} (compared in constant time) and answers 401 {@link #UNAUTHORIZED_BODY}
 * otherwise. The token is never logged ({@link #toString()} redacts it). Immutable and thread-safe.
 */
public final class MetricsAccess {
  /** The flags that set the token. */
  public static final Set<String> TOKEN_FLAGS = Set.of("metrics-token", "metrics-token-file");

  /** The flag of a separate metrics listener. */
  public static final String PORT_FLAG = "metrics-port";

  /** Every flag of a service whose metrics may move to a port of their own. */
  public static final Set<String> FLAGS = Set.of("metrics-token", "metrics-token-file", PORT_FLAG);

  /** The JSON error of a refused scrape. */
  public static final String UNAUTHORIZED_BODY = "{\"error\":{\"code\":\"unauthorized\",\"message\":\"/metrics needs "
      + "Authorization: Bearer <the --metrics-token>\"}}";

  /** A service with no token and metrics on its public port. */
  public static final MetricsAccess OPEN = new MetricsAccess(null, -1);

  private final byte[] tokenSha256;
  private final int port;

  private MetricsAccess(byte[] tokenSha256, int port) {
    this.tokenSha256 = tokenSha256;
    this.port = port;
  }

  /**
   * Reads the token flags and, when {@code withPort}, {@link #PORT_FLAG} (0: any free port). A token under 16
   * characters, both token flags, or an unreadable file stop the start with the flag named.
   */
  public static MetricsAccess from(Settings s, boolean withPort) {
    String token = s.raw("metrics-token");
    Path file = s.path("metrics-token-file", null);
    if (token != null && file != null) {
      throw new ConfigException("give --metrics-token (UPDRAFT_METRICS_TOKEN) or --metrics-token-file (UPDRAFT_METRICS_TOKEN_FILE), not both");
    }
    String flag = "--metrics-token (UPDRAFT_METRICS_TOKEN)";
    if (file != null) {
      flag = "--metrics-token-file " + file;
      try {
        token = Files.readString(file, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new ConfigException("--metrics-token-file (UPDRAFT_METRICS_TOKEN_FILE): cannot read " + file + ": " + e.getMessage());
      }
    }
    if (token != null && token.length() < 16) {
      throw new ConfigException(flag + " must be at least 16 characters: got " + token.length());
    }
    int port = withPort && s.has(PORT_FLAG) ? s.port(PORT_FLAG, 0, true) : -1;
    return new MetricsAccess(token == null ? null : sha256(token), port);
  }

  /** Whether {@code /metrics} needs a token. */
  public boolean protectedByToken() {
    return tokenSha256 != null;
  }

  /** Whether a request with this {@code Authorization} header (nullable) may read the metrics. */
  public boolean allows(String authorization) {
    if (tokenSha256 == null) {
      return true;
    }
    if (authorization == null) {
      return false;
    }
    String h = authorization.trim();
    if (h.length() < 7 || !h.regionMatches(true, 0, "bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(sha256(h.substring(7).trim()), tokenSha256);
  }

  /** Whether {@code /metrics} has a listener of its own (and is not on the public port). */
  public boolean separatePort() {
    return port >= 0;
  }

  /** The port of that listener (0: any free port); -1 when there is none. */
  public int port() {
    return port;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MetricsAccess m && m.port == port && java.util.Arrays.equals(m.tokenSha256, tokenSha256);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Arrays.hashCode(tokenSha256) + port;
  }

  @Override
  public String toString() {
    return "metrics[token=" + (tokenSha256 == null ? "none" : "<redacted>") + ", port=" + (port < 0 ? "public" : Integer.toString(port)) + "]";
  }
}
