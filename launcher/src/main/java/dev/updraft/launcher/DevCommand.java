package dev.updraft.launcher;

import dev.updraft.common.Settings;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code ./updraft dev}: starts a {@link DevStack}, prints where everything is, runs until signalled. */
final class DevCommand {
  private DevCommand() {}

  static int runUntilSignalled(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Settings s = Settings.parse(args, env);
    if (s.bool("help", false)) {
      out.println(
          String.join(
              "\n",
              "usage: updraft dev [--data-dir D] [--control-port N] [--edge-port N] [--public-url URL] [--admin-token T]",
              "                   [--kafka-port N] [--postgres-port N] [--bind ADDR] [--guard-interval 30s] [--edge-public-url URL]",
              "                   [--storage local|gcs|s3|azure --s3-bucket B [--s3-endpoint URL] [--s3-region R] [--s3-path-style]",
              "                    [--s3-public-base-url URL | --s3-presign-ttl 7d]] (AWS credentials from the default chain)",
              "                   [--storage azure --azure-account A --azure-container C [--azure-endpoint URL]",
              "                    [--azure-public-base-url URL | --azure-sas-ttl 7d]] (UPDRAFT_AZURE_ACCOUNT_KEY, or UPDRAFT_AZURE_SAS_TOKEN",
              "                    with --azure-public-base-url: secrets, give them by the environment)",
              "                   [--ingest-linger 250ms] (how long the ingester gathers check-ins per PostgreSQL transaction)",
              "                   [--asset-encoding best|fast] (fast: a publish's zstd, br and gzip copies at low levels, quicker)",
              "                   [--start-timeout 10m] (the longest each service may take to start: replaying a long event log)",
              "                   [--kafka-bootstrap H:P [--kafka-config FILE]] (an external Kafka instead of the embedded one;",
              "                    FILE: its client properties, TLS/SASL, see docs/operations.md, Secured Kafka)",
              "Runs Kafka (KRaft) and PostgreSQL embedded, with their data under --data-dir (default ./.updraft),",
              "the control plane (8080), an edge node (3000) and the telemetry ingester, in this process. Launch assets",
              "(with bundle patches) come from the edge at --edge-public-url (default: --public-url's host, edge port).",
              "Ctrl-C stops everything. A second start on the same data dir comes back with the same state."));
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
