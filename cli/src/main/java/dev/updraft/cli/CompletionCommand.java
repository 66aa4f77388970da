package dev.updraft.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;

/**
 * {@code updraft completion bash|zsh}: a completion script generated from the command tree (picocli's
 * {@link AutoComplete}). The script is a bash one; in zsh it loads {@code bashcompinit} itself, so both
 * shells take the same script.
 */
@Command(name = "completion", footer = Root.EXIT_STATUS,
    description = {
      "Print a shell completion script for every updraft command and flag.",
      "bash: source <(updraft completion bash), or save it in /etc/bash_completion.d/updraft.",
      "zsh: source <(updraft completion zsh) in ~/.zshrc (the script loads bashcompinit).",
      "It completes the command `updraft` (put the ./updraft script on your PATH)."
    })
final class CompletionCommand implements Action {
  /** The launcher's own commands, completed by name (their flags are the services' own). */
  static final List<String> LAUNCHER_COMMANDS = List.of("dev", "control-plane", "edge", "ingest");

  /** The load generator's commands ({@code updraft load ...}). */
  static final List<String> LOAD_COMMANDS = List.of("run", "replay", "baseline", "report", "events");

  @Parameters(paramLabel = "bash|zsh", arity = "0..1", description = "the shell")
  String shell;

  @Override
  public void run(Session s) throws CliException {
    if (shell == null) {
      throw CliException.usage("missing shell: updraft completion bash|zsh");
    }
    if (!shell.equals("bash") && !shell.equals("zsh")) {
      throw CliException.usage("no completion for '" + shell + "': updraft completion bash|zsh");
    }
    String script = AutoComplete.bash("updraft", completionTree());
    if (s.json) {
      ObjectNode r = Api.JSON.createObjectNode();
      r.put("shell", shell);
      r.put("script", script);
      s.print(r, script);
    } else {
      s.out.print(script);
    }
  }

  /** The CLI's commands plus the launcher's and the load generator's, by name. */
  static CommandLine completionTree() {
    CommandLine tree = Cli.tree();
    for (String name : LAUNCHER_COMMANDS) {
      tree.addSubcommand(name, new CommandLine(CommandSpec.create().name(name)));
    }
    CommandLine load = new CommandLine(CommandSpec.create().name("load"));
    for (String name : LOAD_COMMANDS) {
      load.addSubcommand(name, new CommandLine(CommandSpec.create().name(name)));
    }
    tree.addSubcommand("load", load);
    return tree;
  }
}
