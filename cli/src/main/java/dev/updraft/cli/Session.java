package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * One invocation: the global options resolved against the environment, the output streams, and the
 * helpers every command prints through. {@link #print} writes the human line, or the JSON with
 * {@code --json}, never both.
 */
final class Session {
  static final String DEFAULT_SERVER = "http://127.0.0.1:8080";

  final Map<String, String> env;
  final PrintStream out;
  final PrintStream err;
  final Api.Sleeper sleeper;
  /** Whether stderr is a terminal (progress lines are drawn only there). */
  final boolean terminal;
  final boolean json;
  /** The whole command tree (for help and completion). */
  final CommandLine tree;
  private final Root global;

  Session(CommandLine tree, Map<String, String> env, PrintStream out, PrintStream err, Api.Sleeper sleeper, boolean terminal) {
    this.tree = tree;
    this.global = tree.getCommand();
    this.env = env;
    this.out = out;
    this.err = err;
    this.sleeper = sleeper;
    this.terminal = terminal;
    this.json = global.json;
  }

  /** The control plane's API, from {@code --server}/{@code --token}/{@code --cacert} or the environment. */
  Api api() throws CliException {
    String server = global.server != null ? global.server : env.getOrDefault("UPDRAFT_SERVER", DEFAULT_SERVER);
    String token = global.token != null ? global.token : env.get("UPDRAFT_TOKEN");
    if (token == null || token.isBlank()) {
      throw CliException.usage("no token: give --token or set UPDRAFT_TOKEN (the admin token, or one from `updraft tokens create`)");
    }
    String cacert = global.cacert != null ? global.cacert : env.get("UPDRAFT_CACERT");
    URI uri;
    try {
      uri = new URI(server);
    } catch (URISyntaxException e) {
      throw CliException.usage("--server (UPDRAFT_SERVER) " + server + " is not a URL: " + e.getMessage());
    }
    boolean insecure = global.insecure || "true".equalsIgnoreCase(env.getOrDefault("UPDRAFT_INSECURE", "").trim());
    if ("http".equalsIgnoreCase(uri.getScheme()) && !isLoopback(uri.getHost()) && !insecure) {
      throw CliException.usage("refusing to send a token (and any private key) over plain http:// to " + uri.getHost()
          + ": use https:// (--cacert PEM for a private CA), or --insecure (UPDRAFT_INSECURE=true) on a network you trust");
    }
    return new Api(server, token.trim(), sleeper, cacert == null || cacert.isBlank() ? null : Path.of(cacert), Proxies.of(env, uri));
  }

  /**
   * Whether a server host is this machine: {@code localhost}, a name under {@code .localhost}, 127.0.0.0/8 or
   * {@code ::1}, read from the URL itself (no DNS lookup, which an attacker on the network could answer).
   */
  static boolean isLoopback(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(java.util.Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.equals("localhost") || h.endsWith(".localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")
        || h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
  }

  /** Prints {@code human}, or {@code r} as indented JSON with {@code --json}. */
  void print(JsonNode r, String human) {
    if (json) {
      try {
        out.println(Api.JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(r));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    } else {
      out.println(human);
    }
  }

  /** Prints a listing's {@code items}, one {@code line} each ("(none)" when empty). */
  void listing(String path, Function<JsonNode, String> line) throws CliException {
    JsonNode r = api().get(path);
    StringBuilder b = new StringBuilder();
    for (JsonNode n : r.get("items")) {
      b.append(line.apply(n)).append('\n');
    }
    print(r, b.length() == 0 ? "(none)" : b.toString().stripTrailing());
  }

  /** The text of a PEM file a flag names. */
  static String read(String file) throws CliException {
    try {
      return Files.readString(Path.of(file), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage());
    }
  }

  /** {@code /v1/apps/{app}} with the id encoded. */
  static String app(String app) {
    return "/v1/apps/" + Api.enc(app);
  }

  /** A group as the commands print it: id, branch, runtime, rollout, then one line per platform. */
  static String group(JsonNode g, String prefix) {
    StringBuilder b = new StringBuilder(prefix).append(g.get("groupId").asText()).append(" on branch ").append(g.get("branch").asText())
        .append(", runtime ").append(g.get("runtimeVersion").asText());
    if (!g.path("rollout").isNull() && g.has("rollout")) {
      b.append(", rollout ").append(g.get("rollout").get("percentage").asInt()).append("% (").append(g.get("rollout").get("status").asText()).append(")");
    }
    for (JsonNode p : g.get("platforms")) {
      b.append("\n  ").append(String.format("%-8s", p.get("platform").asText())).append(p.get("updateId").asText()).append("  ").append(p.get("createdAt").asText())
          .append(p.get("signed").asBoolean() ? "  signed" : "  unsigned");
    }
    return b.toString();
  }
}
