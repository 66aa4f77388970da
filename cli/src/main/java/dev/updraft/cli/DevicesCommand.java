package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code updraft devices get}: why a device got what it got. */
@Command(name = "devices", description = "Look up a device.", footer = Root.EXIT_STATUS, subcommands = DevicesCommand.Get.class)
final class DevicesCommand {
  private DevicesCommand() {}

  @Command(name = "get", footer = Root.EXIT_STATUS,
      description = "Why a device got what it got: its last request told as a story, then what it reported and was served.")
  static final class Get implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Option(names = "--client-id", paramLabel = "ID", description = "the device's EAS-Client-ID (or give it as the argument)")
    String clientId;

    @Parameters(paramLabel = "ID", arity = "0..*", description = "the client id, instead of --client-id")
    List<String> ids;

    @Override
    public void run(Session s) throws CliException {
      List<String> rest = ids == null ? List.of() : ids;
      if (rest.size() > (clientId != null ? 0 : 1)) {
        throw CliException.usage("devices get takes one client id: got " + rest);
      }
      String id = clientId != null ? clientId : rest.isEmpty() ? null : rest.get(0);
      if (id == null || id.isBlank()) {
        throw CliException.usage("--client-id is required (the device's EAS-Client-ID)");
      }
      JsonNode r = s.api().get(Session.app(app) + "/devices/" + Api.enc(id.trim()));
      s.print(r, InsightsText.device(r));
    }
  }
}
