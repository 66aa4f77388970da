package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code updraft insights}: an update group's devices, launches and failures, a channel's adoption, or the
 * requests edges refused (tables by {@link InsightsText}).
 */
@Command(name = "insights", footer = Root.EXIT_STATUS,
    description = "An update group's devices, launches and failures per platform (--update), hour by hour over 7 days (--update G --hourly),"
        + " its download funnel: devices served, that fetched the launch asset (full, patch, patch then full), launched, failed"
        + " (--update G --funnel),"
        + " which updates a channel's devices run (--channel), or which builds the edges refuse and why (--refused: no channel,"
        + " no runtime version, an unknown keyid...).")
final class InsightsCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
  String app;

  @Option(names = "--update", paramLabel = "GROUP", description = "the group")
  String group;

  @Option(names = "--channel", paramLabel = "C", description = "the channel")
  String channel;

  @Option(names = "--refused", description = "refused requests per reason, runtime version and embedded update")
  boolean refused;

  @Option(names = "--hourly", description = "with --update: hour by hour over the last 7 days (the console's adoption and failure-rate charts)")
  boolean hourly;

  @Option(names = "--funnel", description = "with --update: the download funnel per platform and hour, in distinct devices")
  boolean funnel;

  @Override
  public void run(Session s) throws CliException {
    if ((group != null ? 1 : 0) + (channel != null ? 1 : 0) + (refused ? 1 : 0) != 1) {
      throw CliException.usage("give exactly one of --update GROUP, --channel C or --refused");
    }
    if ((hourly || funnel) && group == null) {
      throw CliException.usage((hourly ? "--hourly" : "--funnel") + " goes with --update GROUP");
    }
    if (hourly && funnel) {
      throw CliException.usage("give --hourly or --funnel, not both");
    }
    Api api = s.api();
    if (refused) {
      JsonNode r = api.get(Session.app(app) + "/insights/refusals");
      s.print(r, InsightsText.refusals(r));
    } else if (group != null && funnel) {
      JsonNode r = api.get(Session.app(app) + "/updates/" + Api.enc(group) + "/funnel");
      s.print(r, FunnelText.funnel(r));
    } else if (group != null && hourly) {
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
