package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code updraft insights}: an update group's devices, launches and failures, or a channel's adoption (tables by {@link InsightsText}). */
@Command(name = "insights", footer = Root.EXIT_STATUS,
    description = "An update group's devices, launches and failures per platform (--update), hour by hour over 7 days (--update G --hourly),"
        + " or which updates a channel's devices run (--channel).")
final class InsightsCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
  String app;

  @Option(names = "--update", paramLabel = "GROUP", description = "the group")
  String group;

  @Option(names = "--channel", paramLabel = "C", description = "the channel")
  String channel;

  @Option(names = "--hourly", description = "with --update: hour by hour over the last 7 days (the console's adoption and failure-rate charts)")
  boolean hourly;

  @Override
  public void run(Session s) throws CliException {
    if ((group == null) == (channel == null)) {
      throw CliException.usage("give exactly one of --update GROUP or --channel C");
    }
    if (hourly && group == null) {
      throw CliException.usage("--hourly goes with --update GROUP");
    }
    Api api = s.api();
    if (group != null && hourly) {
      JsonNode r = api.get(Session.app(app) + "/insights/updates/" + Api.enc(group) + "/hourly");
      s.print(r, InsightsText.hourly(r));
    } else if (group != null) {
      JsonNode r = api.get(Session.app(app) + "/insights/updates/" + Api.enc(group));
      s.print(r, InsightsText.group(r));
    } else {
      JsonNode r = api.get(Session.app(app) + "/insights/channels/" + Api.enc(channel));
      s.print(r, InsightsText.channel(r));
    }
  }
}
