package dev.updraft.systemtests.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/** Runs the real CLI in this JVM against a control plane, as a user or CI would. */
public final class CliRunner {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Map<String, String> env;

  public CliRunner(String server, String token) {
    this.env = Map.of("UPDRAFT_SERVER", server, "UPDRAFT_TOKEN", token);
  }

  /** The result of one command: exit status and what it printed. */
  public record Result(int status, String out, String err) {
    public JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + out, e);
      }
    }
  }

  public Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Cli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs with {@code --json}, asserts success, returns the JSON printed. */
  public JsonNode json(String... args) {
    String[] withJson = Arrays.copyOf(args, args.length + 1);
    withJson[args.length] = "--json";
    Result r = run(withJson);
    assertThat(r.status()).as("updraft %s: %s", String.join(" ", args), r.err()).isZero();
    return r.json();
  }
}
