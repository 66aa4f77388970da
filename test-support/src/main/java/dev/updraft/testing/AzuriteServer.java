package dev.updraft.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * Azurite's blob service (Microsoft's Azure Storage emulator, installed from npm by
 * {@code .ci/install-azurite.sh} into {@code ~/.cache/updraft/azurite} or {@code $UPDRAFT_AZURITE_HOME}) run as
 * a process on a free loopback port with its data in a directory of the test's. It runs under a shell that
 * stops it when its standard input ends, which happens when {@link #close()} closes it or the test JVM ends
 * in any way, so no Azurite outlives its tests. Without Azurite a test is skipped (and reported as skipped),
 * except in CI ({@code CI=true}) where it fails.
 */
public final class AzuriteServer implements AutoCloseable {
  /** Azurite's one account, with its published well-known key (an emulator's, not a secret). */
  public static final String ACCOUNT = "devstoreaccount1";

  public static final String ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  private static final Pattern LISTENING = Pattern.compile("successfully listens on (http://127\\.0\\.0\\.1:(\\d+))");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Process process;
  private final int port;

  private AzuriteServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Where Azurite is installed. */
  public static Path home() {
    String h = System.getenv("UPDRAFT_AZURITE_HOME");
    return h != null && !h.isBlank() ? Path.of(h) : Path.of(System.getProperty("user.home"), ".cache", "updraft", "azurite");
  }

  /** Starts Azurite's blob service with its data in {@code dataDir}; skips the test (fails in CI) when it is not installed. */
  public static AzuriteServer start(Path dataDir) throws IOException {
    Path bin = home().resolve("node_modules/.bin/azurite-blob");
    if (!Files.isExecutable(bin)) {
      String why = "Azurite is not installed at " + bin + ": run bash .ci/install-azurite.sh (needs node and npm)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new IllegalStateException(why + "; CI must run the Azure storage tests");
      }
      Assumptions.abort(why);
    }
    Files.createDirectories(dataDir);
    String cmd =
        "\"$0\" --blobHost 127.0.0.1 --blobPort 0 --location \"$1\" --silent --skipApiVersionCheck --disableTelemetry --disableProductStyleUrl &"
            + " child=$!; cat >/dev/null; kill $child 2>/dev/null; wait $child";
    List<String> argv = new ArrayList<>(List.of("sh", "-c", cmd, bin.toString(), dataDir.toString()));
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    CompletableFuture<Integer> listening = new CompletableFuture<>();
    StringBuilder output = new StringBuilder();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  synchronized (output) {
                    output.append(line).append('\n');
                  }
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    listening.complete(Integer.parseInt(m.group(2)));
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
              listening.completeExceptionally(new IllegalStateException("Azurite ended before it listened"));
            },
            "azurite-output");
    reader.setDaemon(true);
    reader.start();
    try {
      int port = listening.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      return new AzuriteServer(p, port);
    } catch (Exception e) {
      stop(p);
      synchronized (output) {
        throw new IllegalStateException("Azurite (" + bin + ") did not start within " + START_TIMEOUT + " (started " + Instant.now() + "): " + output, e);
      }
    }
  }

  public int port() {
    return port;
  }

  /** The account's blob service URL: {@code http://127.0.0.1:<port>/devstoreaccount1}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port + "/" + ACCOUNT;
  }

  @Override
  public void close() {
    stop(process);
  }

  private static void stop(Process p) {
    try (OutputStream in = p.getOutputStream()) {
      in.flush();
    } catch (IOException e) {
      // already closed: the shell stops Azurite all the same
    }
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroyForcibly();
    }
  }
}
