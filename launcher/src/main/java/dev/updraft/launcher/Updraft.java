package dev.updraft.launcher;

import dev.updraft.cli.Cli;
import dev.updraft.common.ConfigException;
import dev.updraft.launcher.backup.BackupCommands;
import dev.updraft.load.LoadCommand;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/** Entry point of {@code ./updraft}. */
public final class Updraft {
  private Updraft() {}

  static final String USAGE =
      String.join(
          "\n",
          "usage: updraft <command> [options]",
          "",
          "servers:",
          "  dev            everything in one process: embedded Kafka and PostgreSQL, control plane, edge, ingester",
          "  control-plane  the publisher API alone",
          "  edge           an edge node alone",
          "  ingest         a telemetry ingester alone",
          "",
          "operator commands (talk to Kafka and the key store directly):",
          BackupCommands.SYNOPSIS,
          "",
          "load generator:",
          "  load run|replay|baseline|report|events",
          "",
          "'updraft <command> --help' or 'updraft help <command>' tells more.",
          "",
          "publisher commands (talk to a control plane):",
          Cli.synopsis());

  /** The commands the launcher runs itself; every other one is the publisher CLI's. */
  static final Set<String> SERVER_AND_LOAD_COMMANDS = Set.of("dev", "control-plane", "edge", "ingest", "load", "backup", "restore");

  public static void main(String[] args) {
    int status = run(args, System.getenv(), System.out, System.err);
    if (status != Integer.MIN_VALUE) {
      System.exit(status);
    }
  }

  /**
   * Runs a command. Returns its exit status, or {@link Integer#MIN_VALUE} for a server command that
   * keeps running until the process is signalled.
   */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || (args[0].equals("help") && args.length == 1)) {
      out.println(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    if (args[0].equals("help")) {
      // help COMMAND: a server's or the load generator's own --help; the publisher CLI's help command
      String[] asked = Arrays.copyOfRange(args, 1, args.length);
      if (!SERVER_AND_LOAD_COMMANDS.contains(asked[0])) {
        return Cli.run(args, env, out, err);
      }
      String[] withHelp = Arrays.copyOf(asked, asked.length + 1);
      withHelp[asked.length] = "--help";
      return run(withHelp, env, out, err);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      switch (args[0]) {
        case "dev":
          return DevCommand.runUntilSignalled(rest, env, out, err);
        case "control-plane":
        case "edge":
        case "ingest":
          return ServiceCommand.runUntilSignalled(args[0], rest, env, out, err);
        case "load":
          return LoadCommand.run(rest, env, out, err);
        case "backup":
        case "restore":
          return BackupCommands.run(args[0], rest, env, out, err);
        default:
          return Cli.run(args, env, out, err);
      }
    } catch (ConfigException e) {
      err.println("updraft " + args[0] + ": " + e.getMessage());
      return 2;
    }
  }
}
