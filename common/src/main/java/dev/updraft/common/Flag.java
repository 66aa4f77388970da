package dev.updraft.common;

import java.util.function.Function;

/**
 * One flag of a service's {@link FlagTable}: its name (without the dashes), the environment variable that also
 * sets it, the default and the kind of value as shown in {@code --help} and docs/operations.md, what it means, and
 * how its value is read and checked. Made only by {@link FlagTable.Builder}, so every flag a service reads is in
 * its table. Immutable.
 *
 * @param <T> the value read: null where the flag has no default and was not given
 */
public final class Flag<T> {
  private final String name;
  private final String shownDefault;
  private final String unit;
  private final String meaning;
  private final Function<Settings, T> reader;

  Flag(String name, String shownDefault, String unit, String meaning, Function<Settings, T> reader) {
    if (!name.matches("[a-z0-9]+(-[a-z0-9]+)*")) {
      throw new IllegalArgumentException("a flag is named in lower case with dashes: '" + name + "'");
    }
    if (meaning == null || meaning.isBlank()) {
      throw new IllegalArgumentException("--" + name + " has no meaning: every flag says what it does");
    }
    this.name = name;
    this.shownDefault = shownDefault;
    this.unit = unit;
    this.meaning = meaning;
    this.reader = reader;
  }

  /** Without the leading dashes: {@code edge-port}. */
  public String name() {
    return name;
  }

  /** {@code UPDRAFT_EDGE_PORT} for {@code edge-port}. */
  public String env() {
    return Settings.envName(name);
  }

  /** The default as documented: {@code 3000}, {@code none}, {@code <data-dir>/keys}. */
  public String shownDefault() {
    return shownDefault;
  }

  /** The kind of value and its bounds: {@code port (0-65535)}, {@code duration, 1s-1h}, {@code local|s3}. */
  public String unit() {
    return unit;
  }

  /** What the flag does (Markdown: code in backticks, links to sections of docs/operations.md). */
  public String meaning() {
    return meaning;
  }

  /** The value from {@code s}, checked: a {@link ConfigException} naming the flag and the bad value otherwise. */
  public T read(Settings s) {
    return reader.apply(s);
  }

  /** Whether the flag or its environment variable was given. */
  public boolean given(Settings s) {
    return s.has(name);
  }

  /** {@code --name (UPDRAFT_NAME)}, as error messages name a flag. */
  public String described() {
    return "--" + name + " (" + env() + ")";
  }

  @Override
  public String toString() {
    return "--" + name;
  }
}
