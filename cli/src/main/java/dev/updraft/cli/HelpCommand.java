package dev.updraft.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code updraft help [COMMAND...]}: the synopsis of every command, or one command's flags. */
@Command(name = "help", description = "The synopsis of every command, or one command's flags (the same as updraft COMMAND --help).",
    footer = Root.EXIT_STATUS)
final class HelpCommand implements Action {
  @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "a command, e.g. publish or apps create")
  List<String> words;

  @Override
  public void run(Session s) throws CliException {
    CommandLine c = s.tree;
    for (String w : words == null ? List.<String>of() : words) {
      CommandLine sub = c.getSubcommands().get(w);
      if (sub == null) {
        throw CliException.usage("unknown command '" + String.join(" ", words) + "'");
      }
      c = sub;
    }
    Cli.usage(c, s.out);
  }
}
