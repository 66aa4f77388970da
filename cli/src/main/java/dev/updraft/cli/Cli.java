package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

/**
 * The {@code updraft} publisher commands (apps, keys, tokens, publish, rollback, rollout, channel, the
 * listings, insights and device look-ups), each an HTTP call to the control plane. {@code --server URL} / {@code UPDRAFT_SERVER}
 * (default {@code http://127.0.0.1:8080}) and {@code --token T} / {@code UPDRAFT_TOKEN}; an {@code https://} server is
 * verified against the JVM's trust store, or only against the PEM certificates of {@code --cacert FILE} /
 * {@code UPDRAFT_CACERT} when given (a private CA or a self-signed certificate); {@code --json}
 * prints the server's JSON. Exit status 0 on success, 1 with a one-line reason when the server or the
 * files refuse, 2 for a usage error.
 */
public final class Cli {
  static final String USAGE =
      String.join(
          "\n",
          "usage: updraft <command> [flags]   (--server URL | UPDRAFT_SERVER, --token T | UPDRAFT_TOKEN, --cacert PEM | UPDRAFT_CACERT, --json)",
          "  apps create APP [--name NAME] [--certificate PEM --private-key PEM [--key-id main]]",
          "  apps list | apps show APP",
          "  keys generate --out DIR [--common-name CN] [--validity-years N]",
          "  keys register --app APP --certificate PEM --private-key PEM [--key-id main]",
          "  keys certificate --app APP",
          "  tokens create --app APP --role read|publish|admin [--label L]",
          "  tokens list --app APP | tokens revoke --app APP --token-id ID",
          "  publish --app APP --branch B --runtime-version R --dist DIR [--platform ios|android|all] [--message M]",
          "          [--git-commit H] [--expo-config FILE] [--rollout-percentage P [--guard-max-failure-rate F",
          "          --guard-min-devices N --guard-window 1h]] [--idempotency-key K] [--no-progress]",
          "  rollback --app APP --branch B --runtime-version R (--to-update GROUP | --embedded) [--platform P] [--message M]",
          "  rollout --app APP --update GROUP (--percentage P | --finish | --revert [--reason R]) [--guard-... | --no-guard]",
          "  channel --app APP --channel C --branch B [--rollout-branch B2 --percentage P [--rollout-runtime-version R]]",
          "  channels --app APP | branches --app APP | audit --app APP [--limit N] [--before SEQ]",
          "  updates --app APP [--branch B] [--runtime-version R] [--limit N] [--cursor C] | update --app APP --update GROUP",
          "  insights --app APP (--update GROUP | --channel C)   devices on it, launches, failures; adoption on a channel",
          "  devices get --app APP --client-id ID                 why a device got what it got");

  private Cli() {}

  /** Runs one command; returns the exit status. */
  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    return run(args, env, out, err, Thread::sleep, System.console() != null);
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, Api.Sleeper sleeper, boolean terminal) {
    try {
      Args a = Args.parse(args);
      if (a.positional.isEmpty() || a.bool("help") || a.positional.get(0).equals("help")) {
        out.println(USAGE);
        return a.positional.isEmpty() && !a.bool("help") ? 2 : 0;
      }
      new Cli.Session(a, env, out, err, sleeper, terminal).dispatch();
      return 0;
    } catch (CliException e) {
      err.println("error: " + e.getMessage() + (e.code != null ? " [" + e.code + "]" : ""));
      if (e.usage) {
        err.println("run `updraft help` for the commands and their flags");
      }
      return e.usage ? 2 : 1;
    }
  }

  /** One invocation. */
  private static final class Session {
    final Args a;
    final Map<String, String> env;
    final PrintStream out;
    final PrintStream err;
    final Api.Sleeper sleeper;
    final boolean terminal;
    final boolean json;

    Session(Args a, Map<String, String> env, PrintStream out, PrintStream err, Api.Sleeper sleeper, boolean terminal) {
      this.a = a;
      this.env = env;
      this.out = out;
      this.err = err;
      this.sleeper = sleeper;
      this.terminal = terminal;
      this.json = a.bool("json");
    }

    Api api() throws CliException {
      String server = a.get("server") != null ? a.get("server") : env.getOrDefault("UPDRAFT_SERVER", "http://127.0.0.1:8080");
      String token = a.get("token") != null ? a.get("token") : env.get("UPDRAFT_TOKEN");
      if (token == null || token.isBlank()) {
        throw CliException.usage("no token: give --token or set UPDRAFT_TOKEN (the admin token, or one from `updraft tokens create`)");
      }
      String cacert = a.get("cacert") != null ? a.get("cacert") : env.get("UPDRAFT_CACERT");
      return new Api(server, token.trim(), sleeper, cacert == null || cacert.isBlank() ? null : Path.of(cacert));
    }

    String sub(int i, String what) throws CliException {
      if (a.positional.size() <= i) {
        throw CliException.usage("missing " + what);
      }
      return a.positional.get(i);
    }

    void dispatch() throws CliException {
      String cmd = a.positional.get(0);
      switch (cmd) {
        case "apps":
          apps(sub(1, "apps subcommand (create, list, show)"));
          break;
        case "keys":
          keys(sub(1, "keys subcommand (generate, register, certificate)"));
          break;
        case "tokens":
          tokens(sub(1, "tokens subcommand (create, list, revoke)"));
          break;
        case "publish":
          {
            Api api = api();
            boolean noProgress = a.bool("no-progress"); // read first: a flag never read counts as unknown
            JsonNode r = new Publisher(api, err, terminal && !json && !noProgress).publish(a);
            print(r, group(r, r.path("replayed").asBoolean() ? "already published (same idempotency key): group " : "published group "));
            break;
          }
        case "rollback":
          rollback();
          break;
        case "rollout":
          rollout();
          break;
        case "channel":
          channel();
          break;
        case "channels":
          listing("channels", "/channels", n -> n.get("channel").asText() + " -> " + n.get("branch").asText()
              + (n.get("rollout").isNull() ? "" : " (" + n.get("rollout").get("percentage").asInt() + "% -> " + n.get("rollout").get("branch").asText()
                  + (n.get("rollout").get("runtimeVersion").isNull() ? "" : " for runtime " + n.get("rollout").get("runtimeVersion").asText()) + ")"));
          break;
        case "branches":
          listing("branches", "/branches", n -> {
            StringBuilder b = new StringBuilder(n.get("branch").asText());
            for (JsonNode rt : n.get("runtimeVersions")) {
              b.append("\n  runtime ").append(rt.get("runtimeVersion").asText()).append(": ").append(rt.get("groupCount").asInt())
                  .append(" groups, latest ").append(rt.get("latestGroupId").asText())
                  .append(rt.get("activeRolloutGroupId").isNull() ? "" : ", rollout in progress: " + rt.get("activeRolloutGroupId").asText());
            }
            return b.toString();
          });
          break;
        case "updates":
          updates();
          break;
        case "update":
          {
            String app = a.required("app");
            String group = a.required("update");
            a.rejectUnused("update");
            JsonNode r = api().get("/v1/apps/" + Api.enc(app) + "/updates/" + Api.enc(group));
            print(r, group(r, "group "));
            break;
          }
        case "insights":
          insights();
          break;
        case "devices":
          devices(sub(1, "devices subcommand (get)"));
          break;
        case "audit":
          {
            String app = a.required("app");
            Integer limit = a.integer("limit");
            String before = a.get("before");
            a.rejectUnused("audit");
            String q = "?limit=" + (limit == null ? 50 : limit) + (before == null ? "" : "&before=" + Api.enc(before));
            JsonNode r = api().get("/v1/apps/" + Api.enc(app) + "/audit" + q);
            StringBuilder b = new StringBuilder();
            for (JsonNode e : r.get("items")) {
              b.append(String.format("%5d  %s  %-8s %s%n", e.get("sequence").asLong(), e.path("occurredAt").asText("?"), e.path("actor").asText("?"), e.get("summary").asText()));
            }
            if (!r.get("nextBefore").isNull()) {
              b.append("more: --before ").append(r.get("nextBefore").asLong()).append('\n');
            }
            print(r, b.toString().stripTrailing());
            break;
          }
        default:
          throw CliException.usage("unknown command '" + cmd + "'");
      }
    }

    void apps(String sub) throws CliException {
      switch (sub) {
        case "create":
          {
            String app = sub(2, "app id: updraft apps create APP");
            ObjectNode b = Api.JSON.createObjectNode();
            b.put("appId", app);
            if (a.get("name") != null) {
              b.put("displayName", a.get("name"));
            }
            keyMaterial(b, false);
            a.rejectUnused("apps create");
            JsonNode r = api().post("/v1/apps", b);
            print(r, "created app " + r.get("appId").asText() + (r.get("signing").isNull() ? " (unsigned: register a key with `updraft keys register`)" : " with signing key " + r.get("signing").get("keyId").asText()));
            break;
          }
        case "list":
          a.rejectUnused("apps list");
          listing(null, null, n -> n.get("appId").asText() + "  " + n.path("displayName").asText("") + (n.get("signing").isNull() ? "  (unsigned)" : "  (signed)"));
          break;
        case "show":
          {
            String app = sub(2, "app id: updraft apps show APP");
            a.rejectUnused("apps show");
            JsonNode r = api().get("/v1/apps/" + Api.enc(app));
            print(r, r.get("appId").asText() + "  " + r.path("displayName").asText("") + "  events: " + r.get("lastSequence").asLong()
                + (r.get("signing").isNull() ? "  unsigned" : "  keyid " + r.get("signing").get("keyId").asText() + ", certificate sha256 " + r.get("signing").get("certificateSha256").asText()));
            break;
          }
        default:
          throw CliException.usage("unknown apps subcommand '" + sub + "' (create, list, show)");
      }
    }

    void keyMaterial(ObjectNode b, boolean required) throws CliException {
      String cert = a.get("certificate");
      String key = a.get("private-key");
      String keyId = a.get("key-id");
      if (cert == null && key == null && !required) {
        return;
      }
      if (cert == null || key == null) {
        throw CliException.usage("give both --certificate and --private-key (PEM files)");
      }
      b.put("certificatePem", read(cert));
      b.put("privateKeyPem", read(key));
      if (keyId != null) {
        b.put("keyId", keyId);
      }
    }

    String read(String file) throws CliException {
      try {
        return Files.readString(Path.of(file), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        throw new CliException("cannot read " + file + ": " + e.getMessage());
      }
    }

    void keys(String sub) throws CliException {
      switch (sub) {
        case "generate":
          {
            Path outDir = Path.of(a.required("out"));
            String cn = a.get("common-name") != null ? a.get("common-name") : "Updraft code signing";
            Integer years = a.integer("validity-years");
            a.rejectUnused("keys generate");
            if (years != null && (years < 1 || years > 50)) {
              throw CliException.usage("--validity-years must be between 1 and 50");
            }
            KeyGenerator.Generated g = KeyGenerator.generate(outDir, cn, years == null ? 10 : years, Instant.now());
            ObjectNode r = Api.JSON.createObjectNode();
            r.put("privateKey", g.privateKey().toString());
            r.put("publicKey", g.publicKey().toString());
            r.put("certificate", g.certificate().toString());
            r.put("notAfter", g.cert().getNotAfter().toInstant().toString());
            print(r, String.join("\n",
                "wrote " + g.privateKey() + " (keep it secret), " + g.publicKey() + ", " + g.certificate(),
                "certificate valid until " + g.cert().getNotAfter().toInstant(),
                "in app.json, under expo.updates:",
                "  \"codeSigningCertificate\": \"./" + g.certificate().getFileName() + "\",",
                "  \"codeSigningMetadata\": {\"keyid\": \"main\", \"alg\": \"rsa-v1_5-sha256\"}",
                "then: updraft keys register --app APP --certificate " + g.certificate() + " --private-key " + g.privateKey()));
            break;
          }
        case "register":
          {
            String app = a.required("app");
            ObjectNode b = Api.JSON.createObjectNode();
            keyMaterial(b, true);
            a.rejectUnused("keys register");
            JsonNode r = api().put("/v1/apps/" + Api.enc(app) + "/signing-key", b);
            print(r, "registered signing key " + r.get("keyId").asText() + " for app " + app + " (certificate sha256 " + r.get("certificateSha256").asText() + ")");
            break;
          }
        case "certificate":
          {
            String app = a.required("app");
            a.rejectUnused("keys certificate");
            out.print(api().getText("/v1/apps/" + Api.enc(app) + "/certificate"));
            break;
          }
        default:
          throw CliException.usage("unknown keys subcommand '" + sub + "' (generate, register, certificate)");
      }
    }

    void tokens(String sub) throws CliException {
      switch (sub) {
        case "create":
          {
            String app = a.required("app");
            ObjectNode b = Api.JSON.createObjectNode();
            b.put("role", a.required("role"));
            if (a.get("label") != null) {
              b.put("label", a.get("label"));
            }
            a.rejectUnused("tokens create");
            JsonNode r = api().post("/v1/apps/" + Api.enc(app) + "/tokens", b);
            print(r, r.get("token").asText() + "\n(token " + r.get("tokenId").asText() + ", role " + r.get("role").asText() + ": shown once, store it now)");
            break;
          }
        case "list":
          {
            String app = a.required("app");
            a.rejectUnused("tokens list");
            listing(null, "/v1/apps/" + Api.enc(app) + "/tokens", n -> n.get("tokenId").asText() + "  " + n.get("role").asText() + "  "
                + n.path("label").asText("") + (n.get("revokedAt").isNull() ? "" : "  revoked " + n.get("revokedAt").asText()));
            break;
          }
        case "revoke":
          {
            String app = a.required("app");
            String id = a.required("token-id");
            a.rejectUnused("tokens revoke");
            JsonNode r = api().delete("/v1/apps/" + Api.enc(app) + "/tokens/" + Api.enc(id));
            print(r, "revoked token " + r.get("tokenId").asText());
            break;
          }
        default:
          throw CliException.usage("unknown tokens subcommand '" + sub + "' (create, list, revoke)");
      }
    }

    void rollback() throws CliException {
      String app = a.required("app");
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("branch", a.required("branch"));
      b.put("runtimeVersion", a.required("runtime-version"));
      String to = a.get("to-update");
      boolean embedded = a.bool("embedded");
      if ((to == null) == !embedded) {
        throw CliException.usage("give exactly one of --to-update GROUP or --embedded");
      }
      if (to != null) {
        b.put("toGroupId", to);
      } else {
        b.put("embedded", true);
      }
      java.util.List<String> platforms = Publisher.platforms(a.get("platform"));
      if (platforms != null) {
        platforms.forEach(b.putArray("platforms")::add);
      }
      if (a.get("message") != null) {
        b.put("message", a.get("message"));
      }
      a.rejectUnused("rollback");
      String key = "cli-" + java.util.UUID.randomUUID();
      b.put("idempotencyKey", key);
      JsonNode r = api().postRetrying("/v1/apps/" + Api.enc(app) + "/rollbacks", b, Map.of("Idempotency-Key", key));
      print(r, group(r, embedded ? "rolled back to the embedded update: group " : "republished as group "));
    }

    void rollout() throws CliException {
      String app = a.required("app");
      String group = a.required("update");
      Integer pct = a.integer("percentage");
      boolean finish = a.bool("finish");
      boolean revert = a.bool("revert");
      String reason = a.get("reason");
      ObjectNode guard = Publisher.guard(a);
      boolean noGuard = a.bool("no-guard");
      a.rejectUnused("rollout");
      int actions = (pct != null || guard != null || noGuard ? 1 : 0) + (finish ? 1 : 0) + (revert ? 1 : 0);
      if (actions != 1) {
        throw CliException.usage("give exactly one of --percentage P (and/or --guard-*/--no-guard), --finish or --revert");
      }
      String base = "/v1/apps/" + Api.enc(app) + "/updates/" + Api.enc(group) + "/rollout";
      Api api = api();
      if (finish) {
        JsonNode r = api.post(base + "/finish", Api.JSON.createObjectNode());
        print(r, "rollout of group " + group + " finished: every device gets it");
      } else if (revert) {
        ObjectNode b = Api.JSON.createObjectNode();
        if (reason != null) {
          b.put("reason", reason);
        }
        JsonNode r = api.post(base + "/revert", b);
        print(r, group(r.get("replacement"), "rollout of group " + group + " reverted; replaced by group "));
      } else {
        ObjectNode b = Api.JSON.createObjectNode();
        if (pct != null) {
          b.put("percentage", pct);
        }
        if (guard != null) {
          b.set("guard", guard);
        } else if (noGuard) {
          b.putNull("guard");
        }
        JsonNode r = api.patch(base, b);
        print(r, "rollout of group " + group + " now at " + r.get("rollout").get("percentage").asInt() + "%");
      }
    }

    void channel() throws CliException {
      String app = a.required("app");
      String channel = a.required("channel");
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("branch", a.required("branch"));
      if (a.get("rollout-branch") != null) {
        b.put("rolloutBranch", a.get("rollout-branch"));
      }
      Integer pct = a.integer("percentage");
      if (pct != null) {
        b.put("percentage", pct);
      }
      if (a.get("rollout-runtime-version") != null) {
        b.put("rolloutRuntimeVersion", a.get("rollout-runtime-version"));
      }
      a.rejectUnused("channel");
      JsonNode r = api().put("/v1/apps/" + Api.enc(app) + "/channels/" + Api.enc(channel), b);
      print(r, "channel " + channel + " -> branch " + r.get("branch").asText()
          + (r.get("rollout").isNull() ? "" : ", " + r.get("rollout").get("percentage").asInt() + "% -> branch " + r.get("rollout").get("branch").asText()));
    }

    void updates() throws CliException {
      String app = a.required("app");
      StringBuilder q = new StringBuilder("?limit=" + (a.integer("limit") == null ? 50 : a.integer("limit")));
      if (a.get("branch") != null) {
        q.append("&branch=").append(Api.enc(a.get("branch")));
      }
      if (a.get("runtime-version") != null) {
        q.append("&runtimeVersion=").append(Api.enc(a.get("runtime-version")));
      }
      if (a.get("cursor") != null) {
        q.append("&cursor=").append(Api.enc(a.get("cursor")));
      }
      a.rejectUnused("updates");
      JsonNode r = api().get("/v1/apps/" + Api.enc(app) + "/updates" + q);
      StringBuilder b = new StringBuilder();
      for (JsonNode g : r.get("items")) {
        b.append(g.get("groupId").asText()).append("  ").append(g.get("createdAt").asText()).append("  ")
            .append(g.get("branch").asText()).append("  ").append(g.get("runtimeVersion").asText()).append("  ")
            .append(g.get("kind").asText().equals("update") ? "" : "rollBackToEmbedded  ")
            .append(g.get("rollout").isNull() ? "" : "rollout " + g.get("rollout").get("percentage").asInt() + "% " + g.get("rollout").get("status").asText() + "  ")
            .append(g.path("message").asText("")).append('\n');
      }
      if (!r.get("nextCursor").isNull()) {
        b.append("more: --cursor ").append(r.get("nextCursor").asText()).append('\n');
      }
      print(r, b.toString().stripTrailing());
    }

    void insights() throws CliException {
      String app = a.required("app");
      String group = a.get("update");
      String channel = a.get("channel");
      a.rejectUnused("insights");
      if ((group == null) == (channel == null)) {
        throw CliException.usage("give exactly one of --update GROUP or --channel C");
      }
      Api api = api();
      if (group != null) {
        JsonNode r = api.get("/v1/apps/" + Api.enc(app) + "/insights/updates/" + Api.enc(group));
        print(r, InsightsText.group(r));
      } else {
        JsonNode r = api.get("/v1/apps/" + Api.enc(app) + "/insights/channels/" + Api.enc(channel));
        print(r, InsightsText.channel(r));
      }
    }

    void devices(String sub) throws CliException {
      if (!sub.equals("get")) {
        throw CliException.usage("unknown devices subcommand '" + sub + "' (get)");
      }
      String app = a.required("app");
      String id = a.get("client-id") != null ? a.get("client-id") : (a.positional.size() > 2 ? a.positional.get(2) : null);
      a.rejectUnused("devices get");
      if (a.positional.size() > (a.get("client-id") != null ? 2 : 3)) {
        throw CliException.usage("devices get takes one client id: got " + a.positional.subList(2, a.positional.size()));
      }
      if (id == null || id.isBlank()) {
        throw CliException.usage("--client-id is required (the device's EAS-Client-ID)");
      }
      JsonNode r = api().get("/v1/apps/" + Api.enc(app) + "/devices/" + Api.enc(id.trim()));
      print(r, InsightsText.device(r));
    }

    void listing(String command, String path, java.util.function.Function<JsonNode, String> line) throws CliException {
      String p = path;
      if (command != null) {
        String app = a.required("app");
        a.rejectUnused(command);
        p = "/v1/apps/" + Api.enc(app) + path;
      } else if (p == null) {
        p = "/v1/apps";
      }
      JsonNode r = api().get(p);
      StringBuilder b = new StringBuilder();
      for (JsonNode n : r.get("items")) {
        b.append(line.apply(n)).append('\n');
      }
      print(r, b.length() == 0 ? "(none)" : b.toString().stripTrailing());
    }

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
  }
}
