package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The published updates: {@code updraft branches}, {@code updates} (a page of groups) and {@code update} (one group). */
final class UpdateCommands {
  private UpdateCommands() {}

  @Command(name = "branches", description = "List an app's branches with their runtime versions, group counts and rollouts.", footer = Root.EXIT_STATUS)
  static final class Branches implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      s.listing(Session.app(app) + "/branches", n -> {
        StringBuilder b = new StringBuilder(n.get("branch").asText());
        for (JsonNode rt : n.get("runtimeVersions")) {
          b.append("\n  runtime ").append(rt.get("runtimeVersion").asText()).append(": ").append(rt.get("groupCount").asInt())
              .append(" groups, latest ").append(rt.get("latestGroupId").asText())
              .append(rt.get("activeRolloutGroupId").isNull() ? "" : ", rollout in progress: " + rt.get("activeRolloutGroupId").asText());
        }
        return b.toString();
      });
    }
  }

  @Command(name = "updates", sortOptions = false, footer = Root.EXIT_STATUS,
      description = "List an app's update groups, newest first, a page at a time (`updates list` is the same).")
  static final class Updates implements Action {
    @Parameters(paramLabel = "list", arity = "0..1", description = "optional: list")
    List<String> words;

    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
    String app;

    @Option(names = "--branch", paramLabel = "B", order = 2, description = "only this branch")
    String branch;

    @Option(names = "--runtime-version", paramLabel = "R", order = 3, description = "only this runtime version")
    String runtimeVersion;

    @Option(names = "--limit", paramLabel = "N", converter = Values.WholeNumber.class, order = 4, description = "a page of N (default 50)")
    Integer limit;

    @Option(names = "--cursor", paramLabel = "C", order = 5, description = "the next page (printed as more: --cursor C)")
    String cursor;

    @Override
    public void run(Session s) throws CliException {
      if (words != null && !words.isEmpty() && !words.get(0).equals("list")) {
        throw CliException.usage("unknown updates subcommand '" + words.get(0) + "' (list, or none)");
      }
      StringBuilder q = new StringBuilder("?limit=" + (limit == null ? 50 : limit));
      if (branch != null) {
        q.append("&branch=").append(Api.enc(branch));
      }
      if (runtimeVersion != null) {
        q.append("&runtimeVersion=").append(Api.enc(runtimeVersion));
      }
      if (cursor != null) {
        q.append("&cursor=").append(Api.enc(cursor));
      }
      JsonNode r = s.api().get(Session.app(app) + "/updates" + q);
      StringBuilder b = new StringBuilder();
      for (JsonNode g : r.get("items")) {
        b.append(g.get("groupId").asText()).append("  ").append(g.get("createdAt").asText()).append("  ")
            .append(g.get("branch").asText()).append("  ").append(g.get("runtimeVersion").asText()).append("  ")
            .append(g.get("kind").asText().equals("update") ? "" : "rollBackToEmbedded  ")
            .append(g.get("rollout").isNull() ? ""
                : "rollout " + g.get("rollout").get("percentage").asInt() + "% " + g.get("rollout").get("status").asText() + "  ")
            .append(g.path("message").asText("")).append('\n');
      }
      if (!r.get("nextCursor").isNull()) {
        b.append("more: --cursor ").append(r.get("nextCursor").asText()).append('\n');
      }
      s.print(r, b.toString().stripTrailing());
    }
  }

  @Command(name = "update", description = "Show one update group: its platforms, ids and rollout.", footer = Root.EXIT_STATUS)
  static final class Update implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--update", paramLabel = "GROUP", required = true, converter = Values.Text.class, description = "the group id")
    String group;

    @Override
    public void run(Session s) throws CliException {
      JsonNode r = s.api().get(Session.app(app) + "/updates/" + Api.enc(group));
      s.print(r, Session.group(r, "group "));
    }
  }
}
