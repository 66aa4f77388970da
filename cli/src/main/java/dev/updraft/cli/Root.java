package dev.updraft.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code updraft} command: the options every command takes (inherited by each subcommand, so they
 * may stand anywhere on the line) and the list of commands. Its own help is {@link #USAGE}, the one-page
 * synopsis docs/api/README.md repeats; each command's {@code --help} shows that command's flags.
 */
@Command(
    name = "updraft",
    subcommands = {
      AppsCommand.class,
      KeysCommand.class,
      TokensCommand.class,
      PublishCommand.class,
      RollbackCommand.class,
      RolloutCommand.class,
      ChannelCommands.Channel.class,
      ChannelCommands.Channels.class,
      UpdateCommands.Branches.class,
      UpdateCommands.Updates.class,
      UpdateCommands.Update.class,
      AuditCommand.class,
      InsightsCommand.class,
      DevicesCommand.class,
      ErrorsCommand.class,
      BuildsCommand.class,
      LifecycleCommands.Retention.class,
      LifecycleCommands.Assets.class,
      CompletionCommand.class,
      HelpCommand.class
    })
final class Root {
  /** What {@code updraft --help} prints: every command on a line or two. */
  static final String USAGE =
      String.join(
          "\n",
          "usage: updraft <command> [flags]   (--server URL | UPDRAFT_SERVER, --token T | UPDRAFT_TOKEN, --cacert PEM | UPDRAFT_CACERT, --insecure, --json)",
          "  apps create APP [--name NAME] [--certificate PEM --private-key PEM [--key-id main]]",
          "  apps list | apps show APP | apps update APP (--default-channel C | --no-default-channel)",
          "  apps delete APP --confirm APP                        its tokens stop working, its keys are destroyed",
          "  keys generate --out DIR [--common-name CN] [--validity-years N]",
          "  keys register --app APP (--certificate PEM | --certificate-chain PEM) --private-key PEM [--key-id main]",
          "  keys list --app APP | keys usage --app APP | keys retire --app APP --key-id K [--force]",
          "  keys certificate --app APP [--key-id K]",
          "  tokens create --app APP --role read|publish|admin [--label L]",
          "  tokens list --app APP | tokens revoke --app APP --token-id ID",
          "  publish --app APP --branch B --dist DIR [--runtime-version R | --project-dir DIR] [--platform ios|android|all] [--message M]",
          "          [--git-commit H] [--expo-config FILE] [--rollout-percentage P [--guard-max-failure-rate F",
          "          --guard-min-devices N --guard-window 1h]] [--idempotency-key K] [--no-progress]",
          "  rollback --app APP --branch B --runtime-version R (--to-update GROUP | --embedded) [--platform P] [--message M]",
          "  rollout --app APP --update GROUP (--percentage P | --finish | --revert [--reason R]) [--guard-... | --no-guard]",
          "  channel --app APP --channel C --branch B [--rollout-branch B2 --percentage P [--rollout-runtime-version R]]",
          "  channels --app APP | branches --app APP | audit --app APP [--limit N] [--before SEQ]",
          "  updates [list] --app APP [--branch B] [--runtime-version R] [--limit N] [--cursor C]",
          "  update --app APP --update GROUP (or updates show ...)  a group, its launch assets' encodings and bundle patches",
          "  updates delete --app APP --update GROUP [--force] | updates pin|unpin --app APP --update GROUP",
          "  branches delete --app APP --branch B | channels delete --app APP --channel C",
          "  channels pause|resume --app APP --channel C          a kill switch: its devices get no update until resumed",
          "  retention set --app APP [--branch B] --keep N [--max-age 90d] | retention show|remove --app APP [--branch B]",
          "  retention apply --app APP                            apply the app's retention policies now",
          "  assets prune --app APP [--dry-run] [--grace 7d]        delete stored objects no remaining group references",
          "  builds register --app APP --platform P --runtime-version R --embedded-update-id ID --bundle FILE [--expo-updates-version V]"
              + " | builds list --app APP",
          "  insights --app APP (--update GROUP [--hourly | --funnel] | --channel C | --refused)",
          "                                                       devices on it, launches, failures (--hourly: hour by hour",
          "                                                       over 7 days; --funnel: served, fetched, launched, failed);",
          "                                                       adoption on a channel; requests the edges refused",
          "  devices get --app APP --client-id ID                 why a device got what it got",
          "  errors --app APP --update GROUP                      the errors its apps reported, by type and top frame",
          "  completion bash|zsh                                  prints a shell completion script",
          "  help [COMMAND]                                       one command's flags (so does updraft COMMAND --help)",
          "",
          Root.RUNTIME_NOTE,
          Root.EXIT_STATUS);

  /** The publish rule that the synopsis cannot show. */
  static final String RUNTIME_NOTE =
      "publish takes the runtime version from the export's expoConfig.json when --runtime-version is left out;\n"
          + "  a fingerprint policy is resolved by expo-updates' CLI in --project-dir, per platform.";

  /** The exit statuses, in every command's help. */
  static final String EXIT_STATUS =
      "exit status: 0 ok; 1 the server or the files refused, or the command failed (one line on stderr:\n"
          + "  error: <message> [<code>]); 2 a usage error (unknown command or flag, a missing or bad value)";

  @Option(names = "--server", paramLabel = "URL", scope = ScopeType.INHERIT, order = 100,
      description = "the control plane (or UPDRAFT_SERVER; default http://127.0.0.1:8080)")
  String server;

  @Option(names = "--token", paramLabel = "T", scope = ScopeType.INHERIT, order = 101,
      description = "the admin token, or one from `updraft tokens create` (or UPDRAFT_TOKEN)")
  String token;

  @Option(names = "--cacert", paramLabel = "PEM", scope = ScopeType.INHERIT, order = 102,
      description = "trust only these certificates for an https:// server, not the JVM's trust store (or UPDRAFT_CACERT)")
  String cacert;

  @Option(names = "--insecure", scope = ScopeType.INHERIT, order = 103,
      description = "allow a plain http:// server that is not this machine: the token (and any private key) then crosses the network"
          + " in clear (or UPDRAFT_INSECURE=true)")
  boolean insecure;

  @Option(names = "--json", scope = ScopeType.INHERIT, order = 104,
      description = "print JSON: the server's answer, or an object saying what happened")
  boolean json;

  @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, order = 105,
      description = "show this command's flags")
  boolean help;
}
