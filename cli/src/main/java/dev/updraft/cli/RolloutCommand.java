package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code updraft rollout}: steer a per-update rollout (percentage and guard, finish, revert). */
@Command(name = "rollout", sortOptions = false, footer = Root.EXIT_STATUS,
    description = "Change a rollout's percentage or guard, finish it (every device gets it) or revert it (the previous update for everyone).")
final class RolloutCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
  String app;

  @Option(names = "--update", paramLabel = "GROUP", required = true, converter = Values.Text.class, order = 2,
      description = "the group rolling out")
  String group;

  @Option(names = "--percentage", paramLabel = "P", converter = Values.WholeNumber.class, order = 3, description = "the new share of devices")
  Integer percentage;

  @Option(names = "--finish", order = 4, description = "every device gets it")
  boolean finish;

  @Option(names = "--revert", order = 5, description = "republish the previous update for everyone")
  boolean revert;

  @Option(names = "--reason", paramLabel = "R", order = 6, description = "why (with --revert; kept in the audit log)")
  String reason;

  @Mixin GuardOptions guard = new GuardOptions();

  @Option(names = "--no-guard", order = 53, description = "remove the rollout's guard")
  boolean noGuard;

  @Override
  public void run(Session s) throws CliException {
    ObjectNode g = guard.toJson();
    int actions = (percentage != null || g != null || noGuard ? 1 : 0) + (finish ? 1 : 0) + (revert ? 1 : 0);
    if (actions != 1) {
      throw CliException.usage("give exactly one of --percentage P (and/or --guard-*/--no-guard), --finish or --revert");
    }
    String base = Session.app(app) + "/updates/" + Api.enc(group) + "/rollout";
    Api api = s.api();
    if (finish) {
      JsonNode r = api.post(base + "/finish", Api.JSON.createObjectNode());
      s.print(r, "rollout of group " + group + " finished: every device gets it");
    } else if (revert) {
      ObjectNode b = Api.JSON.createObjectNode();
      if (reason != null) {
        b.put("reason", reason);
      }
      JsonNode r = api.post(base + "/revert", b);
      s.print(r, Session.group(r.get("replacement"), "rollout of group " + group + " reverted; replaced by group "));
    } else {
      ObjectNode b = Api.JSON.createObjectNode();
      if (percentage != null) {
        b.put("percentage", percentage);
      }
      if (g != null) {
        b.set("guard", g);
      } else if (noGuard) {
        b.putNull("guard");
      }
      JsonNode r = api.patch(base, b);
      s.print(r, "rollout of group " + group + " now at " + r.get("rollout").get("percentage").asInt() + "%");
    }
  }
}
