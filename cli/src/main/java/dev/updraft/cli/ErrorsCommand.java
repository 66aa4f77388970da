package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code updraft errors}: an update group's error groups, as the app reported them over OTLP/HTTP. */
@Command(name = "errors", footer = Root.EXIT_STATUS,
    description = "An update group's errors, as its apps reported them over OTLP/HTTP (docs/protocol.md): grouped by error type and top"
        + " frame, with the devices that reported each, occurrences, fatal ones, and whether the group is new in this update."
        + " Under each group: its top frame as reported (minified) and, when the update was published with a source map"
        + " (updraft publish uploads the ones `npx expo export --source-maps` writes), where it is in the original source.")
final class ErrorsCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
  String app;

  @Option(names = "--update", paramLabel = "GROUP", required = true, converter = Values.Text.class, description = "the group")
  String group;

  @Override
  public void run(Session s) throws CliException {
    JsonNode r = s.api().get(Session.app(app) + "/updates/" + Api.enc(group) + "/errors");
    s.print(r, text(r));
  }

  /** The table: one row per error group, most devices first. */
  static String text(JsonNode r) {
    StringBuilder b = new StringBuilder();
    b.append("group ").append(r.path("groupId").asText("?")).append(": ").append(r.path("devices").asLong()).append(" devices reported errors");
    JsonNode prev = r.path("previousGroupId");
    b.append(prev.isNull() || prev.isMissingNode() ? " (no previous update to compare with)\n" : " (new: not reported on " + prev.asText() + ")\n");
    if (r.path("groups").isEmpty()) {
      return b.append("no errors reported").toString();
    }
    b.append(String.format("%-8s %-7s %-11s %-5s %-28s %s%n", "DEVICES", "COUNT", "FATAL", "NEW", "TYPE", "TOP FRAME / MESSAGE"));
    for (JsonNode g : r.path("groups")) {
      b.append(String.format("%-8d %-7d %-11d %-5s %-28s %s%n", g.path("devices").asLong(), g.path("occurrences").asLong(),
          g.path("fatal").asLong(), g.path("newInUpdate").asBoolean() ? "yes" : "no", cut(g.path("errorType").asText(), 28),
          (g.path("topFrame").asText().isEmpty() ? "(no stack)" : g.path("topFrame").asText()) + " | " + cut(g.path("sampleMessage").asText(""), 80)));
      b.append(frame(g)).append('\n');
    }
    return b.toString().stripTrailing();
  }

  /** The group's top frame: {@code   at FILE:LINE:COLUMN (NAME)   <- minified} or why it is not resolved. */
  static String frame(JsonNode g) {
    String minified = g.path("minifiedFrame").asText("");
    String status = g.path("sourceMap").asText("");
    JsonNode o = g.path("originalFrame");
    if (o.isObject()) {
      String name = o.path("name").isTextual() ? " (" + o.path("name").asText() + ")" : "";
      return "         at " + o.path("source").asText("?") + ":" + o.path("line").asInt() + ":" + o.path("column").asInt() + name
          + "   <- " + minified;
    }
    String why = switch (status) {
      case "no-source-map" -> "no source map: the update was published without one";
      case "no-position" -> "no position in the top frame";
      case "not-in-map" -> "the source map has no mapping at this position";
      case "unavailable" -> "the source map could not be read just now";
      default -> "not resolved";
    };
    return "         " + (minified.isEmpty() ? "" : minified + "   ") + "(" + why + ")";
  }

  private static String cut(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n - 1) + "…";
  }
}
