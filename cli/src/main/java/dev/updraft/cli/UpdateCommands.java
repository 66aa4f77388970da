package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The published updates: {@code updraft branches}, {@code updates} (a page of groups; {@code updates show}
 * one group) and {@code update} (one group, with its launch assets' encodings and bundle patches).
 */
final class UpdateCommands {
  private UpdateCommands() {}

  @Command(name = "branches", description = "List an app's branches with their runtime versions, group counts and rollouts.", footer = Root.EXIT_STATUS)
  static final class Branches implements Action {
    @Parameters(paramLabel = "delete", arity = "0..1", description = "optional: delete --branch B (with every group on it)")
    String word;

    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--branch", paramLabel = "B", description = "with delete: the branch")
    String branch;

    @Override
    public void run(Session s) throws CliException {
      if ("delete".equals(word)) {
        LifecycleCommands.deleteBranch(s, app, branch);
        return;
      }
      if (word != null) {
        throw CliException.usage("unknown branches subcommand '" + word + "' (delete, or none)");
      }
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
    @Parameters(paramLabel = "list|show|delete|pin|unpin", arity = "0..1",
        description = "optional: list (the default), show (one group, as update), delete, pin or unpin --update GROUP")
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

    @Option(names = "--update", paramLabel = "GROUP", order = 6, description = "with show, delete, pin, unpin: the group")
    String group;

    @Option(names = "--force", order = 7, description = "with delete: also when a channel serves it as its newest update")
    boolean force;

    @Override
    public void run(Session s) throws CliException {
      if (words != null && !words.isEmpty() && words.get(0).equals("show")) {
        if (group == null) {
          throw CliException.usage("updates show needs --update GROUP");
        }
        show(s, app, group);
        return;
      }
      String w = words == null || words.isEmpty() ? "list" : words.get(0);
      if (w.equals("delete") || w.equals("pin") || w.equals("unpin")) {
        if (w.equals("delete")) {
          LifecycleCommands.deleteGroup(s, app, group, force);
        } else {
          LifecycleCommands.pin(s, app, group, w.equals("pin"));
        }
        return;
      }
      if (words != null && !words.isEmpty() && !words.get(0).equals("list")) {
        throw CliException.usage("unknown updates subcommand '" + words.get(0) + "' (list, show, delete, pin, unpin, or none)");
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

  @Command(name = "update", footer = Root.EXIT_STATUS,
      description = "Show one update group: its platforms, ids and rollout, and its launch assets' encodings and bundle patches.")
  static final class Update implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--update", paramLabel = "GROUP", required = true, converter = Values.Text.class, description = "the group id")
    String group;

    @Override
    public void run(Session s) throws CliException {
      show(s, app, group);
    }
  }

  /** One group with its launch assets' stored encodings and bundle patches ({@code deliveries} in JSON). */
  static void show(Session s, String app, String group) throws CliException {
    JsonNode r = s.api().get(Session.app(app) + "/updates/" + Api.enc(group));
    JsonNode d = s.api().get(Session.app(app) + "/updates/" + Api.enc(group) + "/patches");
    com.fasterxml.jackson.databind.node.ObjectNode out = ((com.fasterxml.jackson.databind.node.ObjectNode) r).deepCopy();
    out.set("deliveries", d);
    s.print(out, Session.group(r, "group ") + "\n" + deliveries(d));
  }

  /** The encodings and patches of a group's launch assets, a few lines per platform. */
  static String deliveries(JsonNode d) {
    StringBuilder b = new StringBuilder("launch assets:");
    for (JsonNode p : d.path("platforms")) {
      JsonNode l = p.path("launchAsset");
      b.append("\n  ").append(p.path("platform").asText()).append("  ").append(l.path("sha256").asText(), 0, 12).append('…');
      if (l.has("size")) {
        b.append("  ").append(l.path("size").asLong()).append(" bytes");
      }
      StringBuilder enc = new StringBuilder();
      for (JsonNode e : l.path("encodings")) {
        if (!e.path("encoding").asText().equals("identity")) {
          enc.append(enc.length() == 0 ? "" : ", ").append(e.path("encoding").asText()).append(' ').append(e.path("size").asLong());
        }
      }
      b.append(enc.length() == 0 ? "" : "; " + enc);
      for (JsonNode pt : p.path("patches")) {
        b.append("\n    patch from ").append(pt.path("baseSha256").asText(), 0, 12).append("… (updates ");
        StringBuilder ids = new StringBuilder();
        for (JsonNode id : pt.path("baseUpdateIds")) {
          ids.append(ids.length() == 0 ? "" : ", ").append(id.asText());
        }
        b.append(ids).append("): ").append(pt.path("size").asLong()).append(" bytes");
      }
      if (p.path("patches").isEmpty()) {
        b.append(d.path("computed").asBoolean() ? "\n    no patches (no earlier bundle, or none small enough)" : "\n    patches not computed yet");
      }
      for (JsonNode o : p.path("patchOutcomes")) {
        b.append("\n    from ").append(o.path("baseUpdateId").asText()).append(o.path("fromEmbedded").asBoolean() ? " (embedded)" : "")
            .append(": ").append(o.path("served").asLong()).append(" patches served, ").append(o.path("failed").asLong())
            .append(" devices could not use theirs").append(o.path("baseStopped").asBoolean() ? "; no more patches from it" : "");
      }
    }
    if (d.path("platforms").isEmpty()) {
      b.append(" none (a roll back to embedded)");
    }
    return b.toString();
  }
}
