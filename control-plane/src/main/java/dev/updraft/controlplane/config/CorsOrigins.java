package dev.updraft.controlplane.config;

import dev.updraft.common.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code --cors-origin}: the exact origins browsers may call the API from, validated at start. */
final class CorsOrigins {
  private CorsOrigins() {}

  /** The origins of a comma-separated list (empty when none), each checked; duplicates once. */
  static List<String> parse(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String part : value.split(",")) {
      String o = part.trim();
      if (o.isEmpty()) {
        continue;
      }
      String problem = null;
      try {
        URI u = new URI(o);
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
          problem = "not an http(s) origin";
        } else if (u.getRawPath() != null && !u.getRawPath().isEmpty() || u.getRawQuery() != null || u.getRawFragment() != null || u.getRawUserInfo() != null) {
          problem = "an origin is scheme://host[:port] with nothing after it";
        } else if (!o.equals(o.toLowerCase(Locale.ROOT))) {
          problem = "browsers send origins in lower case";
        }
      } catch (URISyntaxException e) {
        problem = e.getReason();
      }
      if (problem != null) {
        throw new ConfigException(
            "--cors-origin (UPDRAFT_CORS_ORIGIN) must be comma-separated origins such as https://console.example.com: got '" + o + "' (" + problem + ")");
      }
      if (!out.contains(o)) {
        out.add(o);
      }
    }
    return List.copyOf(out);
  }
}
