package dev.updraft.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * picocli's parse failures as the one line the user reads: {@code unknown flag for publish:
 * --rollout-percent; did you mean --rollout-percentage?}, {@code --branch is required},
 * {@code --limit must be a whole number: got 'x'}, {@code unknown command 'x'}, ...
 */
final class ParseErrors {
  private ParseErrors() {}

  /** A usage error found while parsing. */
  record Refusal(String message, boolean suggested) {}

  /** The refusal of {@code args}; an unknown flag is named before a missing one (the typo may be the missing flag). */
  static Refusal of(ParameterException e, String[] args) {
    CommandLine where = e.getCommandLine();
    if (e instanceof UnmatchedArgumentException) {
      return unmatched((UnmatchedArgumentException) e, where);
    }
    if (e instanceof MissingParameterException) {
      List<String> unknown = unknownFlags(where, args);
      if (!unknown.isEmpty()) {
        return unmatched(new UnmatchedArgumentException(where, unknown), where);
      }
      return new Refusal(missing((MissingParameterException) e), false);
    }
    if (e instanceof OverwrittenOptionException) {
      return new Refusal(name(((OverwrittenOptionException) e).getOverwritten()) + " given twice", false);
    }
    if (e.getCause() instanceof TypeConversionException && e.getArgSpec() != null) {
      return new Refusal(name(e.getArgSpec()) + " " + e.getCause().getMessage(), false);
    }
    return new Refusal(e.getMessage(), false);
  }

  /** The command as the user typed it after {@code updraft}: {@code apps create}. */
  static String path(CommandLine c) {
    String q = c.getCommandSpec().qualifiedName(" ");
    return q.equals("updraft") ? q : q.substring("updraft ".length());
  }

  private static Refusal unmatched(UnmatchedArgumentException u, CommandLine where) {
    List<String> unmatched = u.getUnmatched();
    String first = unmatched.isEmpty() ? "" : unmatched.get(0);
    if (!where.getSubcommands().isEmpty() && !first.startsWith("-")) {
      if (where.getParent() == null) {
        String guess = suggestion(u, false);
        return new Refusal("unknown command '" + first + "'" + (guess == null ? "" : "; did you mean " + guess + "?"), guess != null);
      }
      return new Refusal("unknown " + path(where) + " subcommand '" + first + "' (" + String.join(", ", where.getSubcommands().keySet()) + ")",
          false);
    }
    List<String> flags = new ArrayList<>();
    for (String a : unmatched) {
      if (a.startsWith("-") && a.length() > 1) {
        int eq = a.indexOf('=');
        flags.add(eq > 0 ? a.substring(0, eq) : a);
      }
    }
    if (flags.isEmpty()) {
      return new Refusal(path(where) + " takes no argument " + String.join(" ", unmatched)
          + (where.getSubcommands().isEmpty() ? "" : " (its subcommands: " + String.join(", ", where.getSubcommands().keySet()) + ")"), false);
    }
    String guess = flags.size() == 1 ? suggestion(u, true) : null;
    return new Refusal("unknown flag" + (flags.size() > 1 ? "s" : "") + " for " + path(where) + ": " + String.join(", ", flags)
        + (guess == null ? "" : "; did you mean " + guess + "?"), guess != null);
  }

  /**
   * picocli's closest match, a flag for a mistyped flag and a command for a mistyped command, when it is
   * close: one is a prefix of the other, or they differ by at most a third of the letters (at least 2).
   */
  private static String suggestion(UnmatchedArgumentException u, boolean flag) {
    List<String> unmatched = u.getUnmatched();
    if (unmatched.isEmpty()) {
      return null;
    }
    String typed = unmatched.get(0);
    int eq = typed.indexOf('=');
    String t = flag && eq > 0 ? typed.substring(0, eq) : typed;
    for (String s : u.getSuggestions()) {
      if (s.startsWith("-") == flag && close(t, s)) {
        return s;
      }
    }
    return null;
  }

  static boolean close(String typed, String candidate) {
    if (candidate.startsWith(typed) || typed.startsWith(candidate)) {
      return true;
    }
    return distance(typed, candidate) <= Math.max(2, Math.min(typed.length(), candidate.length()) / 3);
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * The flags of {@code args} that the command {@code where} does not know, found by walking the line as
   * picocli does (subcommand names, then options, skipping the value of an option that takes one).
   */
  private static List<String> unknownFlags(CommandLine where, String[] args) {
    CommandLine c = where;
    while (c.getParent() != null) {
      c = c.getParent();
    }
    List<String> unknown = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      CommandLine sub = c.getSubcommands().get(a);
      if (sub != null) {
        c = sub;
        continue;
      }
      if (!a.startsWith("-") || a.length() < 2) {
        continue;
      }
      int eq = a.indexOf('=');
      OptionSpec o = c.getCommandSpec().findOption(eq > 0 ? a.substring(0, eq) : a);
      if (o == null) {
        if (c == where) {
          unknown.add(a);
        }
      } else if (eq < 0 && o.arity().max() > 0) {
        i++;
      }
    }
    return unknown;
  }

  private static String missing(MissingParameterException e) {
    List<String> names = new ArrayList<>();
    for (ArgSpec a : e.getMissing()) {
      names.add(name(a));
    }
    if (names.isEmpty()) {
      return e.getMessage();
    }
    if (e.getMessage().startsWith("Missing required parameter for option")) {
      return names.get(0) + " needs a value";
    }
    List<String> rest = names.subList(1, names.size());
    return names.get(0) + " is required" + (rest.isEmpty() ? "" : "; so " + (rest.size() == 1 ? "is " : "are ") + String.join(" and ", rest));
  }

  private static String name(ArgSpec a) {
    return a instanceof OptionSpec ? ((OptionSpec) a).longestName() : a.paramLabel();
  }
}
