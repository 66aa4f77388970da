package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code updraft insights --update G --funnel}: the download funnel of {@code GET .../updates/{group}/funnel} as text. */
final class FunnelText {
  private FunnelText() {}

  static String funnel(JsonNode r) {
    StringBuilder b = new StringBuilder("download funnel of group " + r.path("groupId").asText() + " (distinct devices, as of "
        + r.path("asOf").asText() + "):");
    for (JsonNode p : r.path("platforms")) {
      JsonNode f = p.path("fetched");
      b.append(String.format("%n%s %s%n  served %d -> fetched %d (full %d, patch %d, patch then full %d) -> launched %d; failed %d; erroring %d",
          p.path("platform").asText(), p.path("updateId").asText(), p.path("served").asLong(), f.path("devices").asLong(),
          f.path("full").asLong(), f.path("patch").asLong(), f.path("patchThenFull").asLong(), p.path("launched").asLong(),
          p.path("failed").asLong(), p.path("erroring").asLong()));
      for (JsonNode h : p.path("hourly")) {
        b.append(String.format("%n  %s  served %d  fetched %d  launched %d  failed %d  erroring %d", h.path("hour").asText(),
            h.path("served").asLong(), h.path("fetched").asLong(), h.path("launched").asLong(), h.path("failed").asLong(),
            h.path("erroring").asLong()));
      }
    }
    return b.toString();
  }
}
