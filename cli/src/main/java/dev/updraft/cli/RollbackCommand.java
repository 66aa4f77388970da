package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code updraft rollback}: republish an earlier group, or send devices back to their embedded bundle. */
@Command(name = "rollback", sortOptions = false, footer = Root.EXIT_STATUS,
    description = "Republish an earlier group (--to-update) or roll back to the embedded bundle (--embedded) on a branch and runtime version.")
final class RollbackCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
  String app;

  @Option(names = "--branch", paramLabel = "B", required = true, converter = Values.Text.class, order = 2, description = "the branch")
  String branch;

  @Option(names = "--runtime-version", paramLabel = "R", required = true, converter = Values.Text.class, order = 3,
      description = "the runtime version")
  String runtimeVersion;

  @Option(names = "--to-update", paramLabel = "GROUP", order = 4, description = "republish this group (new ids, a newer createdAt)")
  String toUpdate;

  @Option(names = "--embedded", order = 5, description = "roll back to the bundle in the binary")
  boolean embedded;

  @Option(names = "--platform", paramLabel = "P", order = 6, description = "ios, android or all (default all)")
  String platform;

  @Option(names = "--message", paramLabel = "M", order = 7, description = "why")
  String message;

  @Override
  public void run(Session s) throws CliException {
    ObjectNode b = Api.JSON.createObjectNode();
    b.put("branch", branch);
    b.put("runtimeVersion", runtimeVersion);
    if ((toUpdate == null) == !embedded) {
      throw CliException.usage("give exactly one of --to-update GROUP or --embedded");
    }
    if (toUpdate != null) {
      b.put("toGroupId", toUpdate);
    } else {
      b.put("embedded", true);
    }
    List<String> platforms = Publisher.platforms(platform);
    if (platforms != null) {
      platforms.forEach(b.putArray("platforms")::add);
    }
    if (message != null) {
      b.put("message", message);
    }
    String key = "cli-" + UUID.randomUUID();
    b.put("idempotencyKey", key);
    JsonNode r = s.api().postRetrying(Session.app(app) + "/rollbacks", b, Map.of("Idempotency-Key", key));
    s.print(r, Session.group(r, embedded ? "rolled back to the embedded update: group " : "republished as group "));
  }
}
