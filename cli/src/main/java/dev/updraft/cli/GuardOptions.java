package dev.updraft.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.Settings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The automatic-revert guard of a rollout ({@code publish --rollout-percentage} and {@code rollout}): all three flags, or none. */
final class GuardOptions {
  @Option(names = "--guard-max-failure-rate", paramLabel = "F", order = 50,
      description = "revert by itself when more than F %% of the devices that received it report it failed")
  String rate;

  @Option(names = "--guard-min-devices", paramLabel = "N", order = 51, description = "... among at least N devices")
  String min;

  @Option(names = "--guard-window", paramLabel = "1h", order = 52, description = "... within this window (30m, 2h, ...)")
  String window;

  /** The guard as the API takes it, or null when no guard flag was given. */
  ObjectNode toJson() throws CliException {
    if (rate == null && min == null && window == null) {
      return null;
    }
    if (rate == null || min == null || window == null) {
      throw CliException.usage("give all of --guard-max-failure-rate, --guard-min-devices and --guard-window");
    }
    ObjectNode g = Api.JSON.createObjectNode();
    try {
      g.put("maxFailureRatePercent", Double.parseDouble(rate));
      g.put("minDevices", Integer.parseInt(min));
    } catch (NumberFormatException e) {
      throw CliException.usage("--guard-max-failure-rate and --guard-min-devices must be numbers");
    }
    try {
      Duration d = Settings.parseDuration(window);
      g.put("windowSeconds", d.toSeconds());
    } catch (IllegalArgumentException e) {
      throw CliException.usage("--guard-window must be a duration like 30m or 2h: got '" + window + "'");
    }
    return g;
  }
}
