package dev.updraft.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Command-line arguments: positionals, {@code --flag value}, {@code --flag=value}, and the boolean flags
 * that take no value (so {@code --json} never swallows the next argument).
 */
final class Args {
  static final Set<String> BOOLEAN = Set.of("json", "embedded", "finish", "revert", "help", "no-progress", "no-guard");

  final List<String> positional = new ArrayList<>();
  final Map<String, String> flags = new LinkedHashMap<>();
  private final Set<String> used = new TreeSet<>();

  static Args parse(String[] argv) throws CliException {
    Args a = new Args();
    for (int i = 0; i < argv.length; i++) {
      String s = argv[i];
      if (s.startsWith("--") && s.length() > 2) {
        String body = s.substring(2);
        int eq = body.indexOf('=');
        String name = eq >= 0 ? body.substring(0, eq) : body;
        String value;
        if (eq >= 0) {
          value = body.substring(eq + 1);
        } else if (BOOLEAN.contains(name)) {
          value = "true";
        } else if (i + 1 < argv.length) {
          value = argv[++i];
        } else {
          throw CliException.usage("--" + name + " needs a value");
        }
        if (a.flags.put(name, value) != null) {
          throw CliException.usage("--" + name + " given twice");
        }
      } else {
        a.positional.add(s);
      }
    }
    return a;
  }

  String get(String name) {
    used.add(name);
    return flags.get(name);
  }

  String required(String name) throws CliException {
    String v = get(name);
    if (v == null || v.isEmpty()) {
      throw CliException.usage("--" + name + " is required");
    }
    return v;
  }

  boolean bool(String name) {
    used.add(name);
    String v = flags.get(name);
    return v != null && !v.equals("false");
  }

  Integer integer(String name) throws CliException {
    String v = get(name);
    if (v == null) {
      return null;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw CliException.usage("--" + name + " must be a whole number: got '" + v + "'");
    }
  }

  /** Refuses flags no part of the command read. Call after the command read every flag it knows. */
  void rejectUnused(String command) throws CliException {
    Set<String> unknown = new TreeSet<>(flags.keySet());
    unknown.removeAll(used);
    unknown.removeAll(Set.of("server", "token", "cacert", "json", "help"));
    if (!unknown.isEmpty()) {
      throw CliException.usage("unknown flag" + (unknown.size() > 1 ? "s" : "") + " for " + command + ": --" + String.join(", --", unknown));
    }
  }
}
