package dev.updraft.systemtests.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One run of the real {@code updraft} CLI in this JVM, as a publisher's CI would run it.
 *
 * @param status the exit status
 * @param out what it printed on stdout
 * @param err what it printed on stderr
 */
public record CliRun(int status, String out, String err) {
  public static final ObjectMapper JSON = new ObjectMapper();

  /** Runs {@code args} against {@code server} with {@code token} (through the environment, as CI does). */
  public static CliRun run(String server, String token, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> env = token == null ? Map.of("UPDRAFT_SERVER", server) : Map.of("UPDRAFT_SERVER", server, "UPDRAFT_TOKEN", token);
    int status = Cli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new CliRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Like {@link #run} but fails unless the exit status is 0; returns the {@code --json} output. */
  public static JsonNode ok(String server, String token, String... args) {
    String[] withJson = new String[args.length + 1];
    System.arraycopy(args, 0, withJson, 0, args.length);
    withJson[args.length] = "--json";
    CliRun r = run(server, token, withJson);
    if (r.status != 0) {
      throw new AssertionError("updraft " + String.join(" ", args) + " exited " + r.status + ": " + r.err);
    }
    return r.json();
  }

  public JsonNode json() {
    try {
      return JSON.readTree(out);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + out, e);
    }
  }
}
