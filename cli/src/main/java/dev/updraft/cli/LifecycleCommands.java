package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What an app keeps and deletes: {@code updraft retention set|show|remove|apply} and {@code updraft assets prune};
 * the deletes of groups, branches, channels and apps ({@link #deleteGroup}, {@link #deleteBranch},
 * {@link #deleteChannel}, {@link AppsDelete}) are words of the commands of those concepts.
 */
final class LifecycleCommands {
  private LifecycleCommands() {}

  @Command(name = "retention", sortOptions = false, footer = Root.EXIT_STATUS,
      description = {"Set, show or remove an app's retention policy (app-wide, or per branch with --branch), or apply the",
          "app's policies now (apply: what the control plane does after each publish and every --retention-interval)."})
  static final class Retention implements Action {
    @Parameters(paramLabel = "set|show|remove|apply", arity = "1", description = "what to do")
    String word;

    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
    String app;

    @Option(names = "--branch", paramLabel = "B", order = 2, description = "the branch's own policy (default: the app-wide one)")
    String branch;

    @Option(names = "--keep", paramLabel = "N", converter = Values.WholeNumber.class, order = 3,
        description = "with set: the newest groups kept per branch and runtime version")
    Integer keep;

    @Option(names = "--max-age", paramLabel = "90d", order = 4, description = "with set: delete groups older than this too")
    String maxAge;

    @Override
    public void run(Session s) throws CliException {
      JsonNode r;
      switch (word) {
        case "apply" -> {
          if (branch != null || keep != null || maxAge != null) {
            throw CliException.usage("retention apply applies every policy of the app: it takes --app only");
          }
          JsonNode a = s.api().post(Session.app(app) + "/retention/apply", Api.JSON.createObjectNode());
          int groups = a.get("groupsDeleted").asInt();
          int events = a.get("events").asInt();
          s.print(a, "deleted " + groups + (groups == 1 ? " group" : " groups") + " in " + events + (events == 1 ? " event" : " events"));
          return;
        }
        case "show" -> r = s.api().get(Session.app(app) + "/retention");
        case "set" -> {
          if (keep == null) {
            throw CliException.usage("retention set needs --keep N");
          }
          ObjectNode b = Api.JSON.createObjectNode();
          if (branch != null) {
            b.put("branch", branch);
          }
          b.put("keep", keep);
          if (maxAge != null) {
            b.put("maxAge", maxAge);
          }
          r = s.api().put(Session.app(app) + "/retention", b);
        }
        case "remove" -> r = s.api().delete(Session.app(app) + "/retention" + (branch == null ? "" : "?branch=" + Api.enc(branch)));
        default -> throw CliException.usage("unknown retention subcommand '" + word + "' (set, show, remove or apply)");
      }
      StringBuilder t = new StringBuilder();
      for (JsonNode p : r.get("policies")) {
        t.append(p.get("branch").isNull() ? "app-wide" : "branch " + p.get("branch").asText()).append(": keep ")
            .append(p.get("keep").asInt())
            .append(p.get("maxAgeSeconds").isNull() ? "" : ", max age " + p.get("maxAgeSeconds").asLong() / 86400 + "d").append('\n');
      }
      t.append(r.get("policies").isEmpty() ? "no retention policy\n" : "").append("pinned: ").append(r.get("pinned").size());
      s.print(r, t.toString());
    }
  }

  @Command(name = "assets", sortOptions = false, footer = Root.EXIT_STATUS,
      description = "Delete stored objects no remaining group references (older than --grace; --dry-run lists them).")
  static final class Assets implements Action {
    @Parameters(paramLabel = "prune", arity = "1", description = "what to do")
    String word;

    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
    String app;

    @Option(names = "--dry-run", order = 2, description = "list what would be deleted and the bytes freed; delete nothing")
    boolean dryRun;

    @Option(names = "--grace", paramLabel = "7d", order = 3, description = "keep objects stored more recently than this (default 7d)")
    String grace;

    @Override
    public void run(Session s) throws CliException {
      if (!word.equals("prune")) {
        throw CliException.usage("unknown assets subcommand '" + word + "' (prune)");
      }
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("dryRun", dryRun);
      if (grace != null) {
        b.put("grace", grace);
      }
      JsonNode r = s.api().post(Session.app(app) + "/assets/prune", b);
      StringBuilder t = new StringBuilder();
      for (JsonNode o : r.get("objects")) {
        t.append(o.get("sha256").asText()).append("  ").append(o.get("size").asLong()).append(" bytes\n");
      }
      t.append(dryRun ? "would delete " : "deleted ").append(r.get("count").asInt()).append(" objects, ").append(r.get("bytes").asLong())
          .append(" bytes; kept ").append(r.get("referenced").asInt()).append(" referenced and ").append(r.get("young").asInt())
          .append(" within the grace");
      s.print(r, t.toString());
    }
  }

  @Command(name = "delete", description = "Delete an app: its tokens stop working, its keys are destroyed.", footer = Root.EXIT_STATUS)
  static final class AppsDelete implements Action {
    @Parameters(paramLabel = "APP", arity = "1", description = "the app id")
    String app;

    @Option(names = "--confirm", paramLabel = "APP", required = true, description = "the app id again")
    String confirm;

    @Override
    public void run(Session s) throws CliException {
      print(s, s.api().delete(Session.app(app) + "?confirm=" + Api.enc(confirm)));
    }
  }

  static void deleteGroup(Session s, String app, String group, boolean force) throws CliException {
    if (group == null) {
      throw CliException.usage("updates delete needs --update GROUP");
    }
    print(s, s.api().delete(Session.app(app) + "/updates/" + Api.enc(group) + (force ? "?force=true" : "")));
  }

  static void pin(Session s, String app, String group, boolean pinned) throws CliException {
    if (group == null) {
      throw CliException.usage("updates " + (pinned ? "pin" : "unpin") + " needs --update GROUP");
    }
    String path = Session.app(app) + "/updates/" + Api.enc(group) + "/pin";
    JsonNode r = pinned ? s.api().put(path, Api.JSON.createObjectNode()) : s.api().delete(path);
    s.print(r, "group " + group + (r.get("pinned").asBoolean() ? " pinned" : " unpinned"));
  }

  static void deleteBranch(Session s, String app, String branch) throws CliException {
    if (branch == null) {
      throw CliException.usage("branches delete needs --branch B");
    }
    print(s, s.api().delete(Session.app(app) + "/branches/" + Api.enc(branch)));
  }

  static void deleteChannel(Session s, String app, String channel) throws CliException {
    if (channel == null) {
      throw CliException.usage("channels delete needs --channel C");
    }
    print(s, s.api().delete(Session.app(app) + "/channels/" + Api.enc(channel)));
  }

  private static void print(Session s, JsonNode r) {
    s.print(r, "deleted " + r.get("deleted").asText() + (r.get("groupIds").isEmpty() ? "" : " (" + r.get("groupIds").size() + " groups)"));
  }
}
