package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code updraft apps create|list|show|update}. */
@Command(name = "apps", description = "Create, list, show, update and delete apps.", footer = Root.EXIT_STATUS,
    subcommands = {AppsCommand.Create.class, AppsCommand.List.class, AppsCommand.Show.class, AppsCommand.Update.class,
        LifecycleCommands.AppsDelete.class})
final class AppsCommand {
  private AppsCommand() {}

  /** The key pair an app signs its manifests with: both files, or neither. */
  static final class KeyFiles {
    @Option(names = "--certificate", paramLabel = "PEM", description = "the code-signing certificate the app embeds")
    String certificate;

    @Option(names = "--private-key", paramLabel = "PEM", description = "its private key (PKCS#1 or PKCS#8)")
    String privateKey;

    @Option(names = "--key-id", paramLabel = "ID", description = "the keyid devices ask for (default main)")
    String keyId;

    /** Adds the PEM texts to {@code body}; refuses one file without the other. */
    void addTo(ObjectNode body, boolean required) throws CliException {
      if (certificate == null && privateKey == null && !required) {
        return;
      }
      if (certificate == null || privateKey == null) {
        throw CliException.usage("give both --certificate and --private-key (PEM files)");
      }
      body.put("certificatePem", Session.read(certificate));
      body.put("privateKeyPem", Session.read(privateKey));
      if (keyId != null) {
        body.put("keyId", keyId);
      }
    }
  }

  @Command(name = "create", description = "Create an app, optionally with its code-signing key pair.", footer = Root.EXIT_STATUS)
  static final class Create implements Action {
    @Parameters(paramLabel = "APP", arity = "0..1", description = "the app id (letters, digits, - and _)")
    String app;

    @Option(names = "--name", paramLabel = "NAME", description = "a display name")
    String name;

    @picocli.CommandLine.Mixin KeyFiles keys = new KeyFiles();

    @Override
    public void run(Session s) throws CliException {
      if (app == null || app.isEmpty()) {
        throw CliException.usage("missing app id: updraft apps create APP");
      }
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("appId", app);
      if (name != null) {
        b.put("displayName", name);
      }
      keys.addTo(b, false);
      JsonNode r = s.api().post("/v1/apps", b);
      s.print(r, "created app " + r.get("appId").asText() + (r.get("signing").isNull()
          ? " (unsigned: register a key with `updraft keys register`)" : " with signing key " + r.get("signing").get("keyId").asText()));
    }
  }

  @Command(name = "list", description = "List the apps this token may see.", footer = Root.EXIT_STATUS)
  static final class List implements Action {
    @Override
    public void run(Session s) throws CliException {
      s.listing("/v1/apps", n -> n.get("appId").asText() + "  " + n.path("displayName").asText("")
          + (n.get("signing").isNull() ? "  (unsigned)" : "  (signed)"));
    }
  }

  @Command(name = "show", description = "Show one app: its last event and its signing key.", footer = Root.EXIT_STATUS)
  static final class Show implements Action {
    @Parameters(paramLabel = "APP", arity = "0..1", description = "the app id")
    String app;

    @Override
    public void run(Session s) throws CliException {
      if (app == null || app.isEmpty()) {
        throw CliException.usage("missing app id: updraft apps show APP");
      }
      JsonNode r = s.api().get(Session.app(app));
      s.print(r, r.get("appId").asText() + "  " + r.path("displayName").asText("") + "  events: " + r.get("lastSequence").asLong()
          + (r.get("signing").isNull() ? "  unsigned"
              : "  keyid " + r.get("signing").get("keyId").asText() + ", certificate sha256 " + r.get("signing").get("certificateSha256").asText())
          + (r.path("keys").size() > 1 ? " (" + r.get("keys").size() + " keys: updraft keys list --app " + app + ")" : "")
          + (r.path("defaultChannel").isTextual() ? "  default channel " + r.get("defaultChannel").asText() : ""));
    }
  }

  @Command(name = "update", description = "Change an app's settings: its default channel.", footer = Root.EXIT_STATUS)
  static final class Update implements Action {
    @Parameters(paramLabel = "APP", arity = "0..1", description = "the app id")
    String app;

    @Option(names = "--default-channel", paramLabel = "C", converter = Values.Text.class,
        description = "the channel a device request without expo-channel-name is answered for (a build without "
            + "updates.requestHeaders); without one, edges refuse such requests")
    String defaultChannel;

    @Option(names = "--no-default-channel", description = "remove the default channel")
    boolean noDefaultChannel;

    @Override
    public void run(Session s) throws CliException {
      if (app == null || app.isEmpty()) {
        throw CliException.usage("missing app id: updraft apps update APP --default-channel C");
      }
      if ((defaultChannel == null) == !noDefaultChannel) {
        throw CliException.usage("give exactly one of --default-channel C or --no-default-channel");
      }
      ObjectNode b = Api.JSON.createObjectNode();
      if (noDefaultChannel) {
        b.putNull("defaultChannel");
      } else {
        b.put("defaultChannel", defaultChannel);
      }
      JsonNode r = s.api().patch(Session.app(app), b);
      s.print(r, r.path("defaultChannel").isTextual()
          ? "app " + app + ": requests without a channel are answered for channel " + r.get("defaultChannel").asText()
          : "app " + app + ": no default channel (requests without a channel are refused)");
    }
  }
}
