package dev.updraft.common;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Every flag of one command, declared once: the command's configuration reads each value through its
 * {@link Flag}, rejects flags not in the table by name, prints {@code --help} from it ({@link #help}) and
 * docs/operations.md's flag reference is generated from it ({@link #markdown}; a test fails when they differ).
 * Flags keep the order they were declared in. Immutable.
 *
 * <p>Adding a flag: declare it in the service's table ({@code builder.duration("x-interval", ...)}), read it
 * with {@code X_INTERVAL.read(settings)} in the configuration, regenerate the reference (the doc test prints
 * it) and paste it into docs/operations.md.
 */
public final class FlagTable {
  private final Map<String, Flag<?>> flags;

  private FlagTable(Map<String, Flag<?>> flags) {
    this.flags = Collections.unmodifiableMap(new LinkedHashMap<>(flags));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The flags in declaration order. */
  public List<Flag<?>> flags() {
    return List.copyOf(flags.values());
  }

  /** The flag names without dashes, as {@link Settings#rejectUnknown} takes them. */
  public Set<String> names() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(flags.keySet()));
  }

  /** The flags of this table named in {@code names}, in this table's order (a group another command passes on). */
  public FlagTable only(Set<String> names) {
    Map<String, Flag<?>> some = new LinkedHashMap<>();
    for (String n : names) {
      flag(n);
    }
    for (Flag<?> f : flags.values()) {
      if (names.contains(f.name())) {
        some.put(f.name(), f);
      }
    }
    return new FlagTable(some);
  }

  /** The declared flag; an {@link IllegalArgumentException} for one the table does not have (a bug). */
  public Flag<?> flag(String name) {
    Flag<?> f = flags.get(name);
    if (f == null) {
      throw new IllegalArgumentException("--" + name + " is not in this table: " + flags.keySet());
    }
    return f;
  }

  /** Throws a {@link ConfigException} naming every given flag this table does not have (nor {@code extra}). */
  public void rejectUnknown(Settings s, Set<String> extra) {
    Set<String> known = new LinkedHashSet<>(flags.keySet());
    known.addAll(extra);
    s.rejectUnknown(known);
  }

  /**
   * The {@code --help} text: {@code usage}, then per flag its name, environment variable, kind of value,
   * default and meaning (Markdown reduced to plain text), wrapped at 100 columns.
   */
  public String help(String usage) {
    StringBuilder b = new StringBuilder(usage).append('\n');
    b.append("Every flag --x can also be given as the environment variable UPDRAFT_X (a flag wins over it);\n");
    b.append("bad values stop the start with a message naming the flag.\n");
    for (Flag<?> f : flags.values()) {
      b.append("\n  --").append(f.name()).append("  ").append(f.env()).append("\n");
      b.append("      ").append(plain(f.unit())).append("; default: ").append(plain(f.shownDefault())).append('\n');
      wrap(b, plain(f.meaning()), "      ", 100);
    }
    return b.toString();
  }

  /** The Markdown table of docs/operations.md: flag, environment variable, kind, default, meaning. */
  public String markdown() {
    StringBuilder b = new StringBuilder("| Flag | Environment | Value | Default | Meaning |\n|---|---|---|---|---|\n");
    for (Flag<?> f : flags.values()) {
      b.append("| `--").append(f.name()).append("` | `").append(f.env()).append("` | ").append(f.unit()).append(" | ")
          .append(f.shownDefault()).append(" | ").append(f.meaning().replace("|", "\\|")).append(" |\n");
    }
    return b.toString();
  }

  /** Markdown code and links as plain text: {@code `x`} is x, {@code [text](#anchor)} is text. */
  static String plain(String markdown) {
    return markdown.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("**", "").replace("\\|", "|");
  }

  private static void wrap(StringBuilder b, String text, String indent, int width) {
    int col = 0;
    for (String word : text.split(" ")) {
      if (word.isEmpty()) {
        continue;
      }
      if (col > 0 && col + 1 + word.length() > width) {
        b.append('\n');
        col = 0;
      }
      if (col == 0) {
        b.append(indent).append(word);
        col = indent.length() + word.length();
      } else {
        b.append(' ').append(word);
        col += 1 + word.length();
      }
    }
    b.append('\n');
  }

  /**
   * Declares flags in order. Each method adds one flag and returns it, so a table is a class of constants:
   * {@code static final Flag<Integer> PARTITIONS = T.integer("events-partitions", 3, 1, 1000, "partitions", "...")}.
   * The shown default and kind are derived from the typed default and bounds, so they cannot drift from the
   * parsing. A name declared twice is refused (a bug).
   */
  public static final class Builder {
    private final Map<String, Flag<?>> flags = new LinkedHashMap<>();

    private Builder() {}

    private <T> Flag<T> add(String name, String shown, String unit, String meaning, Function<Settings, T> reader) {
      Flag<T> f = new Flag<>(name, shown, unit, meaning, reader);
      if (flags.putIfAbsent(name, f) != null) {
        throw new IllegalArgumentException("--" + name + " is declared twice");
      }
      return f;
    }

    /** Every flag of {@code other} (a group shared by several services), in its order. */
    public Builder include(FlagTable other) {
      for (Flag<?> f : other.flags.values()) {
        if (flags.putIfAbsent(f.name(), f) != null) {
          throw new IllegalArgumentException("--" + f.name() + " is declared twice");
        }
      }
      return this;
    }

    /** Free text; {@code def} null: none (the value is then null). */
    public Flag<String> text(String name, String def, String meaning) {
      return add(name, def == null || def.isEmpty() ? "none" : "`" + def + "`", "text", meaning, s -> s.string(name, def));
    }

    /**
     * A flag whose value the owning code reads and checks itself ({@link Flag#read} gives the raw value or
     * null): {@code shown} and {@code unit} document it.
     */
    public Flag<String> custom(String name, String shown, String unit, String meaning) {
      return add(name, shown, unit, meaning, s -> s.raw(name));
    }

    /** A whole number in {@code [min, max]}. */
    public Flag<Integer> integer(String name, int def, int min, int max, String unit, String meaning) {
      return add(name, Integer.toString(def), unit + " (" + min + "–" + max + ")", meaning, s -> s.integer(name, def, min, max));
    }

    /** A size in bytes in {@code [min, max]}. */
    public Flag<Long> bytes(String name, long def, long min, long max, String meaning) {
      return add(name, def + bytesShown(def), "bytes (" + min + "–" + max + ")", meaning, s -> s.longValue(name, def, min, max));
    }

    /** A TCP port; 0 (any free port) only when {@code allowZero}. */
    public Flag<Integer> port(String name, int def, boolean allowZero, String meaning) {
      return add(name, Integer.toString(def), allowZero ? "port (0 = any free port)" : "port", meaning, s -> s.port(name, def, allowZero));
    }

    /** {@code true} or {@code false} (also on/off, yes/no, 1/0); a bare {@code --name} is true. */
    public Flag<Boolean> bool(String name, boolean def, String meaning) {
      return add(name, Boolean.toString(def), "true/false", meaning, s -> s.bool(name, def));
    }

    /** A file or directory; null when not given (the owner resolves {@code shown}, such as {@code <data-dir>/keys}). */
    public Flag<Path> path(String name, String shown, String meaning) {
      return add(name, shown, "path", meaning, s -> s.path(name, null));
    }

    /** One of {@code allowed}, lower case; {@code def} null: none (the value is then null). */
    public Flag<String> choice(String name, String def, String meaning, String... allowed) {
      return add(name, def == null ? "none" : "`" + def + "`", String.join(" \\| ", allowed), meaning, s -> s.choice(name, def, allowed));
    }

    /**
     * A duration ({@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}) in {@code [min, max]} (either
     * null: unbounded on that side); {@code def} null: none (the value is then null).
     */
    public Flag<Duration> duration(String name, Duration def, Duration min, Duration max, String meaning) {
      String bounds = min == null && max == null ? ""
          : max == null ? "at least " + shown(min) : min == null ? "at most " + shown(max) : "between " + shown(min) + " and " + shown(max);
      String unit = bounds.isEmpty() ? "duration" : "duration (" + bounds.replace("between ", "").replace(" and ", "–") + ")";
      return add(name, def == null ? "none" : shown(def), unit, meaning, s -> {
        Duration d = s.duration(name, def);
        if (d != null && ((min != null && d.compareTo(min) < 0) || (max != null && d.compareTo(max) > 0))) {
          throw new ConfigException("--" + name + " (" + Settings.envName(name) + ") must be " + bounds + ": got " + s.raw(name));
        }
        return d;
      });
    }

    public FlagTable build() {
      return new FlagTable(flags);
    }
  }

  /** {@code 90s} as {@code 90s}, {@code 3600s} as {@code 1h}: the largest whole unit. */
  static String shown(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000L == 0 && ms > 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms % 3_600_000L == 0 && ms > 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms % 60_000L == 0 && ms > 0) {
      return ms / 60_000L + "m";
    }
    if (ms % 1000L == 0 && ms > 0) {
      return ms / 1000L + "s";
    }
    return ms + "ms";
  }

  private static String bytesShown(long n) {
    String[] units = {"KiB", "MiB", "GiB"};
    long v = n;
    String u = null;
    for (String unit : units) {
      if (v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u = unit;
      }
    }
    return u == null ? "" : " (" + v + " " + u + ")";
  }

  @Override
  public String toString() {
    List<String> names = new ArrayList<>();
    for (String n : flags.keySet()) {
      names.add("--" + n);
    }
    return "FlagTable" + names;
  }
}
