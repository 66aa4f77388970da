package dev.updraft.systemtests.launcher;

import dev.updraft.embedded.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code updraft dev} as a child JVM on fixed free ports and a given data dir. */
final class DevProcess implements AutoCloseable {
  final Path dataDir;
  final int controlPort = Ports.freePort();
  final int edgePort = Ports.freePort();
  final int kafkaPort = Ports.freePort();
  final int postgresPort = Ports.freePort();
  final String adminToken;
  final Path log;
  private Process process;

  DevProcess(Path dataDir, String adminToken) {
    this.dataDir = dataDir;
    this.adminToken = adminToken;
    this.log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
  }

  List<Integer> ports() {
    return List.of(controlPort, edgePort, kafkaPort, postgresPort);
  }

  String controlUrl() {
    return "http://127.0.0.1:" + controlPort;
  }

  String edgeUrl() {
    return "http://127.0.0.1:" + edgePort;
  }

  /** Starts the process and waits (bounded) until the edge's /readyz answers 200. Returns the ms it took. */
  long startAndAwaitReady() throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx768m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.updraft.launcher.Updraft");
    cmd.addAll(
        List.of(
            "dev",
            "--data-dir", dataDir.toString(),
            "--control-port", Integer.toString(controlPort),
            "--edge-port", Integer.toString(edgePort),
            "--kafka-port", Integer.toString(kafkaPort),
            "--postgres-port", Integer.toString(postgresPort),
            "--admin-token", adminToken));
    long t0 = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // the edge's warm-up (up to 30 s once the data dir holds updates) measures no state: WarmupIT covers it
    pb.environment().put("UPDRAFT_WARMUP_REQUESTS", "0");
    // the publish's encoded copies at low levels: best ones take seconds of both cores while the test goes on
    pb.environment().put("UPDRAFT_ASSET_ENCODING", "fast");
    pb.environment().remove("UPDRAFT_MASTER_KEY"); // dev makes and keeps its own
    process = pb.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("updraft dev exited with " + process.exitValue() + "; log:\n" + Files.readString(log));
      }
      if (status(edgeUrl() + "/readyz") == 200) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      }
      Thread.sleep(200);
    }
    throw new AssertionError("edge not ready within 180 s; log:\n" + Files.readString(log));
  }

  /** SIGTERM, then wait for the exit. Returns the exit code. */
  int stop() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("updraft dev did not stop within 30 s of SIGTERM; log:\n" + Files.readString(log));
    }
    return process.exitValue();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The status of {@code GET url}, or -1 when nothing answers. */
  static int status(String url) {
    return dev.updraft.systemtests.reliability.ChildJvm.status(url);
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
