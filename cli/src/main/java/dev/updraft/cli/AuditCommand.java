package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code updraft audit}: every change to an app, newest first, with its actor. */
@Command(name = "audit", description = "List every change to an app, newest first, with its actor (admin, a token id, or guard).",
    footer = Root.EXIT_STATUS)
final class AuditCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
  String app;

  @Option(names = "--limit", paramLabel = "N", converter = Values.WholeNumber.class, description = "a page of N entries (default 50)")
  Integer limit;

  @Option(names = "--before", paramLabel = "SEQ", description = "the entries before this sequence (printed as more: --before SEQ)")
  String before;

  @Override
  public void run(Session s) throws CliException {
    String q = "?limit=" + (limit == null ? 50 : limit) + (before == null ? "" : "&before=" + Api.enc(before));
    JsonNode r = s.api().get(Session.app(app) + "/audit" + q);
    StringBuilder b = new StringBuilder();
    for (JsonNode e : r.get("items")) {
      b.append(String.format("%5d  %s  %-8s %s%n", e.get("sequence").asLong(), e.path("occurredAt").asText("?"), e.path("actor").asText("?"),
          e.get("summary").asText()));
    }
    if (!r.get("nextBefore").isNull()) {
      b.append("more: --before ").append(r.get("nextBefore").asLong()).append('\n');
    }
    s.print(r, b.toString().stripTrailing());
  }
}
