package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code updraft keys generate|register|certificate}: an app's code-signing key pair. */
@Command(name = "keys", description = "Make, register and show code-signing keys.", footer = Root.EXIT_STATUS,
    subcommands = {KeysCommand.Generate.class, KeysCommand.Register.class, KeysCommand.Certificate.class})
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

  @Command(name = "register", description = "Give an app its signing key pair (a rotation when it has one).", footer = Root.EXIT_STATUS)
  static final class Register implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Mixin AppsCommand.KeyFiles keys = new AppsCommand.KeyFiles();

    @Override
    public void run(Session s) throws CliException {
      ObjectNode b = Api.JSON.createObjectNode();
      keys.addTo(b, true);
      JsonNode r = s.api().put(Session.app(app) + "/signing-key", b);
      s.print(r, "registered signing key " + r.get("keyId").asText() + " for app " + app
          + " (certificate sha256 " + r.get("certificateSha256").asText() + ")");
    }
  }

  @Command(name = "certificate", description = "Print the certificate the app signs with now (PEM).", footer = Root.EXIT_STATUS)
  static final class Certificate implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      String pem = s.api().getText(Session.app(app) + "/certificate");
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
