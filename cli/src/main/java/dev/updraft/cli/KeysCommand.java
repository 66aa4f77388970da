package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code updraft keys generate|register|list|usage|retire|certificate}: an app's key ring. */
@Command(name = "keys", description = "Make, register, list, retire and show code-signing keys (an app's key ring).",
    footer = Root.EXIT_STATUS,
    subcommands = {KeysCommand.Generate.class, KeysCommand.Register.class, KeysCommand.ListKeys.class, KeysCommand.Usage.class,
        KeysCommand.Retire.class, KeysCommand.Certificate.class})
final class KeysCommand {
  private KeysCommand() {}

  @Command(name = "generate", footer = Root.EXIT_STATUS,
      description = "Write an RSA-2048 key pair and a self-signed code-signing certificate (what `npx expo-updates codesigning:generate` makes); no server needed.")
  static final class Generate implements Action {
    @Option(names = "--out", paramLabel = "DIR", required = true, converter = Values.Text.class,
        description = "where to write private-key.pem (0600), public-key.pem and certificate.pem")
    String out;

    @Option(names = "--common-name", paramLabel = "CN", description = "the certificate's subject (default \"Updraft code signing\")")
    String commonName;

    @Option(names = "--validity-years", paramLabel = "N", converter = Values.WholeNumber.class, description = "1 to 50 (default 10)")
    Integer years;

    @Override
    public void run(Session s) throws CliException {
      if (years != null && (years < 1 || years > 50)) {
        throw CliException.usage("--validity-years must be between 1 and 50");
      }
      String cn = commonName != null ? commonName : "Updraft code signing";
      KeyGenerator.Generated g = KeyGenerator.generate(Path.of(out), cn, years == null ? 10 : years, Instant.now());
      ObjectNode r = Api.JSON.createObjectNode();
      r.put("privateKey", g.privateKey().toString());
      r.put("publicKey", g.publicKey().toString());
      r.put("certificate", g.certificate().toString());
      r.put("notAfter", g.cert().getNotAfter().toInstant().toString());
      s.print(r, String.join("\n",
          "wrote " + g.privateKey() + " (keep it secret), " + g.publicKey() + ", " + g.certificate(),
          "certificate valid until " + g.cert().getNotAfter().toInstant(),
          "in app.json, under expo.updates:",
          "  \"codeSigningCertificate\": \"./" + g.certificate().getFileName() + "\",",
          "  \"codeSigningMetadata\": {\"keyid\": \"main\", \"alg\": \"rsa-v1_5-sha256\"}",
          "then: updraft keys register --app APP --certificate " + g.certificate() + " --private-key " + g.privateKey()));
    }
  }

  @Command(name = "register", footer = Root.EXIT_STATUS,
      description = "Add a key to an app's key ring (its other keys stay active), or replace the key of its --key-id; "
          + "everything devices can be served is re-signed with every key.")
  static final class Register implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Mixin AppsCommand.KeyFiles keys = new AppsCommand.KeyFiles();

    @Option(names = "--certificate-chain", paramLabel = "PEM",
        description = "chain mode instead of --certificate: the leaf then the intermediates (PEM), whose root the app embeds "
            + "(codeSigningIncludeManifestResponseCertificateChain)")
    String chain;

    @Override
    public void run(Session s) throws CliException {
      ObjectNode b = Api.JSON.createObjectNode();
      if (chain != null) {
        if (keys.certificate != null) {
          throw CliException.usage("give --certificate or --certificate-chain, not both");
        }
        if (keys.privateKey == null) {
          throw CliException.usage("give --private-key (the leaf's) with --certificate-chain");
        }
        b.put("certificateChainPem", Session.read(chain));
        b.put("privateKeyPem", Session.read(keys.privateKey));
        if (keys.keyId != null) {
          b.put("keyId", keys.keyId);
        }
      } else {
        keys.addTo(b, true);
      }
      JsonNode r = s.api().put(Session.app(app) + "/signing-key", b);
      s.print(r, "registered signing key " + r.get("keyId").asText() + " for app " + app
          + (r.path("chain").asBoolean() ? " (certificate chain)" : "")
          + " (certificate sha256 " + r.get("certificateSha256").asText() + ", valid until " + r.path("notAfter").asText("?") + ")");
    }
  }

  @Command(name = "list", description = "List an app's keys: keyid, certificate expiry, chain mode.", footer = Root.EXIT_STATUS)
  static final class ListKeys implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      s.listing(Session.app(app) + "/keys", KeysCommand::line);
    }
  }

  @Command(name = "usage", footer = Root.EXIT_STATUS,
      description = "Which keys devices asked for lately (expo-expect-signature): per key, the devices within the control plane's "
          + "--key-in-use-days and when one last asked; a key with asks is not retired without --force.")
  static final class Usage implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      JsonNode r = s.api().get(Session.app(app) + "/key-usage");
      if (!r.path("known").asBoolean(true)) {
        StringBuilder u = new StringBuilder("asks unknown (" + r.path("reason").asText() + "): " + r.path("message").asText());
        for (JsonNode k : r.get("items")) {
          u.append(String.format("%n%-16s devices unknown", k.get("keyId").asText()));
        }
        s.print(r, u.toString());
        return;
      }
      StringBuilder b = new StringBuilder("asks of the last " + r.path("windowDays").asInt() + " days:");
      for (JsonNode k : r.get("items")) {
        b.append(String.format("%n%-16s devices %d  last asked %s", k.get("keyId").asText(), k.path("devices").asLong(),
            k.path("lastAskedAt").isNull() ? "never" : k.path("lastAskedAt").asText()));
      }
      s.print(r, b.toString());
    }
  }

  /** One key as {@code keys list} and {@code keys retire} print it. */
  static String line(JsonNode k) {
    return String.format("%-16s notAfter %s%s%s  sha256 %s", k.get("keyId").asText(), k.path("notAfter").asText("?"),
        k.path("chain").asBoolean() ? "  chain" : "", k.path("primary").asBoolean() ? "  primary" : "",
        k.get("certificateSha256").asText());
  }

  @Command(name = "retire", footer = Root.EXIT_STATUS,
      description = "Take a key out of an app's key ring: nothing is signed with it any more and devices asking for its keyid "
          + "are refused (never the last key; not one devices asked for within the control plane's --key-in-use-days "
          + "unless --force).")
  static final class Retire implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--key-id", paramLabel = "ID", required = true, converter = Values.Text.class, description = "the key to retire")
    String keyId;

    @Option(names = "--force", description = "retire it even if devices asked for it lately, or the server cannot tell "
        + "(the audit entry records that it was forced)")
    boolean force;

    @Override
    public void run(Session s) throws CliException {
      JsonNode r = s.api().delete(Session.app(app) + "/keys/" + Api.enc(keyId) + (force ? "?force=true" : ""));
      StringBuilder b = new StringBuilder("retired key " + keyId + " of app " + app + (force ? " (forced)" : "") + "; the key ring now:");
      for (JsonNode k : r.get("items")) {
        b.append("\n").append(line(k));
      }
      s.print(r, b.toString());
    }
  }

  @Command(name = "certificate", footer = Root.EXIT_STATUS,
      description = "Print the certificate of the app's newest key (what new builds embed), or of --key-id (PEM; a chain key: its chain).")
  static final class Certificate implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--key-id", paramLabel = "ID", converter = Values.Text.class, description = "the key (default: the newest)")
    String keyId;

    @Override
    public void run(Session s) throws CliException {
      String pem = s.api().getText(Session.app(app) + "/certificate" + (keyId == null ? "" : "?keyId=" + Api.enc(keyId)));
      if (s.json) {
        ObjectNode r = Api.JSON.createObjectNode();
        r.put("appId", app);
        r.put("certificatePem", pem);
        s.print(r, pem);
      } else {
        s.out.print(pem);
      }
    }
  }
}
