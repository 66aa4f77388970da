package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code updraft channel} (map a channel) and {@code updraft channels} (list them). */
final class ChannelCommands {
  private ChannelCommands() {}

  @Command(name = "channel", sortOptions = false, footer = Root.EXIT_STATUS,
      description = "Map a channel to a branch, optionally a second branch for a share of its devices (a branch rollout).")
  static final class Channel implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
    String app;

    @Option(names = "--channel", paramLabel = "C", required = true, converter = Values.Text.class, order = 2,
        description = "the channel builds ask for (expo-channel-name)")
    String channel;

    @Option(names = "--branch", paramLabel = "B", required = true, converter = Values.Text.class, order = 3, description = "the branch it serves")
    String branch;

    @Option(names = "--rollout-branch", paramLabel = "B2", order = 4, description = "a second branch for --percentage P %% of the devices")
    String rolloutBranch;

    @Option(names = "--percentage", paramLabel = "P", converter = Values.WholeNumber.class, order = 5, description = "the share for B2")
    Integer percentage;

    @Option(names = "--rollout-runtime-version", paramLabel = "R", order = 6, description = "only devices of this runtime version take B2")
    String rolloutRuntimeVersion;

    @Override
    public void run(Session s) throws CliException {
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("branch", branch);
      if (rolloutBranch != null) {
        b.put("rolloutBranch", rolloutBranch);
      }
      if (percentage != null) {
        b.put("percentage", percentage);
      }
      if (rolloutRuntimeVersion != null) {
        b.put("rolloutRuntimeVersion", rolloutRuntimeVersion);
      }
      JsonNode r = s.api().put(Session.app(app) + "/channels/" + Api.enc(channel), b);
      s.print(r, "channel " + channel + " -> branch " + r.get("branch").asText() + (r.get("rollout").isNull() ? ""
          : ", " + r.get("rollout").get("percentage").asInt() + "% -> branch " + r.get("rollout").get("branch").asText()));
    }
  }

  @Command(name = "channels", description = "List an app's channels and where they point; pause, resume or delete one.",
      footer = Root.EXIT_STATUS)
  static final class Channels implements Action {
    @picocli.CommandLine.Parameters(paramLabel = "pause|resume|delete", arity = "0..1",
        description = "optional: pause --channel C (its devices get no update, a kill switch), resume it, or delete its mapping")
    String word;

    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--channel", paramLabel = "C", description = "with pause, resume or delete: the channel")
    String channel;

    @Override
    public void run(Session s) throws CliException {
      if ("delete".equals(word)) {
        LifecycleCommands.deleteChannel(s, app, channel);
        return;
      }
      if ("pause".equals(word) || "resume".equals(word)) {
        if (channel == null) {
          throw CliException.usage("channels " + word + " needs --channel C");
        }
        JsonNode r = s.api().post(Session.app(app) + "/channels/" + Api.enc(channel) + "/" + word, Api.JSON.createObjectNode());
        s.print(r, "channel " + line(r));
        return;
      }
      if (word != null) {
        throw CliException.usage("unknown channels subcommand '" + word + "' (pause, resume, delete, or none)");
      }
      s.listing(Session.app(app) + "/channels", ChannelCommands::line);
    }
  }

  private static String line(JsonNode n) {
    JsonNode rollout = n.get("rollout");
    return n.get("channel").asText() + " -> " + n.get("branch").asText() + (rollout.isNull() ? ""
        : " (" + rollout.get("percentage").asInt() + "% -> " + rollout.get("branch").asText()
            + (rollout.get("runtimeVersion").isNull() ? "" : " for runtime " + rollout.get("runtimeVersion").asText()) + ")")
        + (n.path("paused").asBoolean(false) ? " [paused: devices get no update]" : "");
  }
}
