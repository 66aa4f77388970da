package dev.updraft.cli;

import java.io.PrintStream;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The {@code updraft} publisher commands (apps, keys, tokens, publish, rollback, rollout, channel, the
 * listings, insights and device look-ups, completion), each an HTTP call to the control plane, parsed
 * by picocli from the command classes {@link Root} lists. {@code --server URL} / {@code UPDRAFT_SERVER}
 * (default {@code http://127.0.0.1:8080}) and {@code --token T} / {@code UPDRAFT_TOKEN}; an
 * {@code https://} server is verified against the JVM's trust store, or only against the PEM
 * certificates of {@code --cacert FILE} / {@code UPDRAFT_CACERT} when given; {@code --json} prints
 * JSON. Exit status 0 on success, 1 with a one-line reason when the server or the files refuse, 2 for
 * a usage error (one line too).
 */
public final class Cli {
  private Cli() {}

  /** What {@code updraft --help} prints for the publisher commands: every command on a line or two, and the exit statuses. */
  public static String synopsis() {
    return Root.USAGE;
  }

  /** Runs one command; returns the exit status. */
  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    return run(args, env, out, err, Thread::sleep, System.console() != null);
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, Api.Sleeper sleeper, boolean terminal) {
    CommandLine tree = tree();
    ParseResult parsed;
    try {
      parsed = tree.parseArgs(args);
    } catch (ParameterException e) {
      ParseErrors.Refusal r = ParseErrors.of(e, args);
      return usageError(r.message(), r.suggested() ? null : e.getCommandLine(), err);
    }
    ParseResult leaf = parsed;
    boolean help = parsed.isUsageHelpRequested();
    while (leaf.hasSubcommand()) {
      leaf = leaf.subcommand();
      help |= leaf.isUsageHelpRequested();
    }
    CommandLine command = leaf.commandSpec().commandLine();
    if (help && !leaf.unmatched().isEmpty()) {
      // picocli lets --help through an unknown command or flag; name it rather than show another command's help
      ParseErrors.Refusal r = ParseErrors.of(new CommandLine.UnmatchedArgumentException(command, leaf.unmatched()), args);
      return usageError(r.message(), r.suggested() ? null : command, err);
    }
    if (help) {
      usage(command, out);
      return 0;
    }
    if (leaf == parsed) {
      out.println(Root.USAGE);
      return 2;
    }
    if (!(command.getCommand() instanceof Action)) {
      return usageError("missing " + ParseErrors.path(command) + " subcommand (" + String.join(", ", command.getSubcommands().keySet()) + ")",
          command, err);
    }
    try {
      ((Action) command.getCommand()).run(new Session(tree, env, out, err, sleeper, terminal));
      return 0;
    } catch (CliException e) {
      if (e.usage) {
        return usageError(e.getMessage(), command, err);
      }
      err.println("error: " + e.getMessage() + (e.code != null ? " [" + e.code + "]" : ""));
      return 1;
    }
  }

  /** The command tree, parsing as the old hand-written parser did: a flag's value may look like a flag or a command. */
  static CommandLine tree() {
    CommandLine c = new CommandLine(new Root());
    c.setAllowOptionsAsOptionParameters(true);
    c.setAllowSubcommandsAsOptionParameters(true);
    c.setUsageHelpWidth(110);
    c.setColorScheme(CommandLine.Help.defaultColorScheme(Ansi.OFF));
    spaceFooters(c);
    return c;
  }

  private static void spaceFooters(CommandLine c) {
    c.getCommandSpec().usageMessage().footerHeading("%n");
    c.getSubcommands().values().forEach(Cli::spaceFooters);
  }

  /** Prints a command's help: {@link Root#USAGE} for {@code updraft} itself. */
  static void usage(CommandLine command, PrintStream out) {
    if (command.getCommand() instanceof Root) {
      out.println(Root.USAGE);
    } else {
      command.usage(out, Ansi.OFF);
    }
  }

  /** One line on stderr; {@code where} (nullable) names the command whose --help would help. */
  private static int usageError(String message, CommandLine where, PrintStream err) {
    String hint = where == null ? "" : " (updraft " + (where.getParent() == null ? "" : ParseErrors.path(where) + " ") + "--help lists "
        + (where.getParent() == null ? "the commands" : where.getSubcommands().isEmpty() ? "its flags" : "its subcommands") + ")";
    err.println("error: " + message + hint);
    return 2;
  }
}
