package dev.updraft.common;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Raw configuration from command-line flags and {@code UPDRAFT_*} environment variables, with typed
 * getters that validate and name the flag in every error. A flag wins over its environment variable:
 * {@code --edge-port 3001} over {@code UPDRAFT_EDGE_PORT=3002}. Immutable and thread-safe.
 *
 * <p>Services read it once at start into their own typed configuration record and call
 * {@link #rejectUnknown(Set)} so that a misspelled flag stops the start with a clear message.
 */
public final class Settings {
  private final Map<String, String> flags;
  private final Map<String, String> env;
  private final List<String> positional;

  private Settings(Map<String, String> flags, Map<String, String> env, List<String> positional) {
    this.flags = Collections.unmodifiableMap(new LinkedHashMap<>(flags));
    this.env = env;
    this.positional = List.copyOf(positional);
  }

  /** Settings from flags given as a map (keys without the leading dashes) and an environment. */
  public static Settings of(Map<String, String> flags, Map<String, String> env) {
    return new Settings(flags, env, List.of());
  }

  /**
   * Parses {@code --name value}, {@code --name=value} and bare {@code --name} (= {@code true}); any other
   * argument is positional.
   */
  public static Settings parse(String[] args, Map<String, String> env) {
    Map<String, String> flags = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("--") && a.length() > 2) {
        String body = a.substring(2);
        int eq = body.indexOf('=');
        if (eq >= 0) {
          flags.put(body.substring(0, eq), body.substring(eq + 1));
        } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
          flags.put(body, args[++i]);
        } else {
          flags.put(body, "true");
        }
      } else {
        positional.add(a);
      }
    }
    return new Settings(flags, env, positional);
  }

  /** A copy with {@code name} set as a flag (used by the all-in-one launcher). */
  public Settings with(String name, String value) {
    Map<String, String> f = new LinkedHashMap<>(flags);
    f.put(name, value);
    return new Settings(f, env, positional);
  }

  /** A copy with {@code name} set unless given already as a flag or environment variable. */
  public Settings withDefault(String name, String value) {
    return raw(name) != null ? this : with(name, value);
  }

  public List<String> positional() {
    return positional;
  }

  /**
   * A flag holding an absolute http(s) URL without query or fragment, returned without a trailing slash; a
   * {@link ConfigException} naming the flag, its environment variable and the value otherwise.
   */
  public static String httpUrl(String flag, String value) {
    String v = value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    try {
      URI u = new URI(v);
      if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
        throw new URISyntaxException(v, "not an absolute http(s) URL");
      }
      if (u.getQuery() != null || u.getFragment() != null) {
        throw new URISyntaxException(v, "query and fragment are not allowed");
      }
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "--" + flag + " (" + envName(flag) + ") must be an absolute http(s) URL such as https://updates.example.com: got '"
              + value + "' (" + e.getReason() + ")");
    }
    return v;
  }

  /** The environment variable for a flag: {@code edge-port} is {@code UPDRAFT_EDGE_PORT}. */
  public static String envName(String flag) {
    return "UPDRAFT_" + flag.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  private static String describe(String name) {
    return "--" + name + " (" + envName(name) + ")";
  }

  /** The raw value, or null. */
  public String raw(String name) {
    String v = flags.get(name);
    if (v == null) {
      v = env.get(envName(name));
    }
    return v == null || v.isBlank() ? null : v.trim();
  }

  public boolean has(String name) {
    return raw(name) != null;
  }

  public String string(String name, String def) {
    String v = raw(name);
    return v == null ? def : v;
  }

  public String required(String name) {
    String v = raw(name);
    if (v == null) {
      throw new ConfigException(describe(name) + " is required");
    }
    return v;
  }

  public int integer(String name, int def, int min, int max) {
    String v = raw(name);
    if (v == null) {
      return def;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new ConfigException(describe(name) + " must be between " + min + " and " + max + ": got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new ConfigException(describe(name) + " must be a whole number: got '" + v + "'");
    }
  }

  public long longValue(String name, long def, long min, long max) {
    String v = raw(name);
    if (v == null) {
      return def;
    }
    try {
      long n = Long.parseLong(v);
      if (n < min || n > max) {
        throw new ConfigException(describe(name) + " must be between " + min + " and " + max + ": got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new ConfigException(describe(name) + " must be a whole number: got '" + v + "'");
    }
  }

  /** A TCP port; 0 means "any free port" only when {@code allowZero}. */
  public int port(String name, int def, boolean allowZero) {
    return integer(name, def, allowZero ? 0 : 1, 65535);
  }

  public boolean bool(String name, boolean def) {
    String v = raw(name);
    if (v == null) {
      return def;
    }
    switch (v.toLowerCase(Locale.ROOT)) {
      case "true": case "on": case "yes": case "1":
        return true;
      case "false": case "off": case "no": case "0":
        return false;
      default:
        throw new ConfigException(describe(name) + " must be true or false: got '" + v + "'");
    }
  }

  /** A duration written as {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h} or {@code 7d}. */
  public Duration duration(String name, Duration def) {
    String v = raw(name);
    if (v == null) {
      return def;
    }
    try {
      return parseDuration(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(describe(name) + " must be a duration like 250ms, 30s, 5m, 2h or 7d: got '" + v + "'");
    }
  }

  /** Parses {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}. */
  public static Duration parseDuration(String v) {
    String s = v.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < s.length() && Character.isDigit(s.charAt(i))) {
      i++;
    }
    if (i == 0 || i == s.length()) {
      throw new IllegalArgumentException("not a duration: " + v);
    }
    long n = Long.parseLong(s.substring(0, i));
    switch (s.substring(i)) {
      case "ms": return Duration.ofMillis(n);
      case "s": return Duration.ofSeconds(n);
      case "m": return Duration.ofMinutes(n);
      case "h": return Duration.ofHours(n);
      case "d": return Duration.ofDays(n);
      default: throw new IllegalArgumentException("not a duration: " + v);
    }
  }

  public Path path(String name, Path def) {
    String v = raw(name);
    return v == null ? def : Path.of(v);
  }

  /** One of {@code allowed} (compared in lower case). */
  public String choice(String name, String def, String... allowed) {
    String v = raw(name);
    if (v == null) {
      return def;
    }
    String lower = v.toLowerCase(Locale.ROOT);
    for (String a : allowed) {
      if (a.equals(lower)) {
        return a;
      }
    }
    throw new ConfigException(describe(name) + " must be one of " + String.join(", ", allowed) + ": got '" + v + "'");
  }

  /** Throws naming every flag given that is not in {@code known}. */
  public void rejectUnknown(Set<String> known) {
    Set<String> unknown = new TreeSet<>(flags.keySet());
    unknown.removeAll(known);
    if (!unknown.isEmpty()) {
      List<String> shown = new ArrayList<>();
      for (String u : unknown) {
        shown.add("--" + u);
      }
      throw new ConfigException(
          "unknown flag" + (shown.size() > 1 ? "s " : " ") + String.join(", ", shown) + "; known: --" + String.join(", --", new TreeSet<>(known)));
    }
  }
}
