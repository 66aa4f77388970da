package dev.updraft.systemtests.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A service run as production runs it, {@code java -cp <this test's classpath> dev.updraft.launcher.Updraft
 * <command> <flags>}, in a process of its own, so that a test can kill it for real: {@link #kill()} sends
 * SIGKILL ({@code destroyForcibly}), which no shutdown hook sees. Output goes to a log file.
 */
public final class ChildJvm implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path log;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code updraft args...} with {@code env} added to this process's environment. */
  public static ChildJvm start(Path log, Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        "dev.updraft.launcher.Updraft"));
    cmd.addAll(List.of(args));
    ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    b.environment().putAll(env);
    try {
      return new ChildJvm(b.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd, e);
    }
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** Waits (bounded) until {@code url} answers 200; fails with the log if the process exits first. */
  public long awaitOk(String url, Duration timeout) {
    long t0 = System.nanoTime();
    long deadline = t0 + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("process exited with " + process.exitValue() + " before " + url + " answered; log:\n" + output());
      }
      if (status(url) == 200) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new AssertionError(url + " did not answer 200 within " + timeout.toSeconds() + " s; log:\n" + output());
  }

  /** SIGKILL, and wait until the process is gone. */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("process " + process.pid() + " still alive 30 s after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** What it printed so far. */
  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The status of {@code GET url}, or -1 when nothing answers. */
  public static int status(String url) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
