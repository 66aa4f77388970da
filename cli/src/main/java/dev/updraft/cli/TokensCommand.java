package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code updraft tokens create|list|revoke}: per-app tokens. */
@Command(name = "tokens", description = "Create, list and revoke an app's tokens.", footer = Root.EXIT_STATUS,
    subcommands = {TokensCommand.Create.class, TokensCommand.List.class, TokensCommand.Revoke.class})
final class TokensCommand {
  private TokensCommand() {}

  @Command(name = "create", description = "Make a token for one app; it is shown once.", footer = Root.EXIT_STATUS)
  static final class Create implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--role", paramLabel = "read|publish|admin", required = true, converter = Values.Text.class,
        description = "read: every GET of the app; publish: + uploads, publish, rollbacks, rollouts, channels; admin: + tokens and keys")
    String role;

    @Option(names = "--label", paramLabel = "L", description = "a note saying what the token is for (ci, ...)")
    String label;

    @Option(names = "--expires-in", paramLabel = "DURATION", converter = Values.Text.class,
        description = "how long the token works: 90m, 12h, 30d, ... (at most 365d; default 90d)")
    String expiresIn;

    @Option(names = "--expires-at", paramLabel = "INSTANT", converter = Values.Text.class,
        description = "when the token stops working, instead of --expires-in: 2027-01-31T00:00:00Z")
    String expiresAt;

    @Override
    public void run(Session s) throws CliException {
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("role", role);
      if (label != null) {
        b.put("label", label);
      }
      if (expiresIn != null) {
        b.put("expiresIn", expiresIn);
      }
      if (expiresAt != null) {
        b.put("expiresAt", expiresAt);
      }
      JsonNode r = s.api().post(Session.app(app) + "/tokens", b);
      s.print(r, r.get("token").asText() + "\n(token " + r.get("tokenId").asText() + ", role " + r.get("role").asText()
          + ", expires " + r.path("expiresAt").asText("never") + ": shown once, store it now)");
    }
  }

  @Command(name = "list", description = "List an app's tokens (ids, roles, labels, expiry; never the secrets).", footer = Root.EXIT_STATUS)
  static final class List implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      s.listing(Session.app(app) + "/tokens", n -> n.get("tokenId").asText() + "  " + n.get("role").asText() + "  "
          + n.path("label").asText("") + "  " + expiry(n) + (n.get("revokedAt").isNull() ? "" : "  revoked " + n.get("revokedAt").asText()));
    }

    /** "expires AT", "expired AT" or "never expires". */
    static String expiry(JsonNode n) {
      JsonNode at = n.path("expiresAt");
      if (at.isMissingNode() || at.isNull()) {
        return "never expires";
      }
      return (n.path("expired").asBoolean(false) ? "expired " : "expires ") + at.asText();
    }
  }

  @Command(name = "revoke", description = "Revoke a token at once.", footer = Root.EXIT_STATUS)
  static final class Revoke implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--token-id", paramLabel = "ID", required = true, converter = Values.Text.class, description = "the token's id (tok_...)")
    String id;

    @Override
    public void run(Session s) throws CliException {
      JsonNode r = s.api().delete(Session.app(app) + "/tokens/" + Api.enc(id));
      s.print(r, "revoked token " + r.get("tokenId").asText());
    }
  }
}
