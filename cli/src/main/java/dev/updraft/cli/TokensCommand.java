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

    @Override
    public void run(Session s) throws CliException {
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("role", role);
      if (label != null) {
        b.put("label", label);
      }
      JsonNode r = s.api().post(Session.app(app) + "/tokens", b);
      s.print(r, r.get("token").asText() + "\n(token " + r.get("tokenId").asText() + ", role " + r.get("role").asText()
          + ": shown once, store it now)");
    }
  }

  @Command(name = "list", description = "List an app's tokens (ids, roles, labels; never the secrets).", footer = Root.EXIT_STATUS)
  static final class List implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      s.listing(Session.app(app) + "/tokens", n -> n.get("tokenId").asText() + "  " + n.get("role").asText() + "  "
          + n.path("label").asText("") + (n.get("revokedAt").isNull() ? "" : "  revoked " + n.get("revokedAt").asText()));
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
