package dev.updraft.launcher;

import dev.updraft.common.Settings;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code ./updraft dev}: starts a {@link DevStack}, prints where everything is, runs until signalled. */
final class DevCommand {
  private DevCommand() {}

  /** {@code dev --help}: what it runs, then every flag from {@link DevFlags#TABLE}. */
  static String help() {
    return DevFlags.TABLE.help(String.join(
        "\n",
        "usage: updraft dev [--flag value ...]",
        "Runs Kafka (KRaft) and PostgreSQL embedded, with their data under --data-dir (default ./.updraft),",
        "the control plane (8080), an edge node (3000) and the telemetry ingester, in this process. Launch assets",
        "(with bundle patches) come from the edge at --edge-public-url (default: --public-url's host, edge port).",
        "Ctrl-C stops everything. A second start on the same data dir comes back with the same state.",
        ""));
  }

  static int runUntilSignalled(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Settings s = Settings.parse(args, env);
    if (s.bool("help", false)) {
      out.print(help());
      return 0;
    }
    DevConfig config = DevConfig.from(s);
    DevStack stack = DevStack.start(config, env);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("updraft dev: stopping");
                  stack.close();
                  out.println("updraft dev: stopped");
                  stopped.countDown();
                },
                "updraft-shutdown"));
    String edgeUrl = "http://" + config.bind() + ":" + config.edgePort();
    out.println();
    out.println("Updraft is ready (" + stack.readyMillis + " ms).");
    out.println("  control plane   http://" + config.bind() + ":" + config.controlPort() + "/v1   (assets at " + config.publicUrl() + "/assets/)");
    out.println("  console         http://" + config.bind() + ":" + config.controlPort() + "/console/");
    out.println("  edge            " + edgeUrl + "/apps/<app>/manifest   (launch assets and patches at " + config.edgePublicUrl() + "/apps/<app>/assets/)");
    out.println("  admin token     " + stack.adminToken);
    out.println("  kafka           " + stack.kafkaBootstrap() + "   postgres 127.0.0.1:" + stack.postgresPort() + "/" + DevStack.DATABASE);
    out.println("  metrics         " + edgeUrl + "/metrics, http://" + config.bind() + ":" + config.controlPort() + "/metrics, http://127.0.0.1:" + stack.ingesterMetricsPort + "/metrics (ingester)");
    out.println("  data dir        " + config.dataDir());
    out.println();
    out.println("Try: export UPDRAFT_SERVER=http://" + config.bind() + ":" + config.controlPort() + " UPDRAFT_TOKEN=" + stack.adminToken);
    out.println("     ./updraft apps create demo && ./updraft publish --app demo --branch main --runtime-version 1.0.0 --dist dist");
    out.println("Ctrl-C stops everything.");
    out.flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
