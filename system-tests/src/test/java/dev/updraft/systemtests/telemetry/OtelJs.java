package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code otel/report-errors.cjs} with the real OpenTelemetry JS SDK that {@code .ci/install-otel-js.sh} installs
 * (~/.cache/updraft/otel-js, or $UPDRAFT_OTEL_JS_HOME). Missing packages fail the test with the command to run: never a skip.
 */
final class OtelJs {
  private OtelJs() {}

  static Path modules() {
    String home = System.getenv("UPDRAFT_OTEL_JS_HOME");
    Path dir = (home == null ? Path.of(System.getProperty("user.home"), ".cache", "updraft", "otel-js") : Path.of(home)).resolve("node_modules");
    assertThat(dir.resolve("@opentelemetry/exporter-logs-otlp-http/package.json"))
        .as("the OpenTelemetry JS SDK is not installed: run bash .ci/install-otel-js.sh (CI runs it from .ci/run)").exists();
    return dir;
  }

  /** Every device exports one error through the SDK's exporter {@code via} ({@code logs-json}, {@code logs-proto}, {@code traces-json}). */
  static void report(String edgeUrl, String via, List<Map<String, String>> devices, String type, String message, String stack) throws Exception {
    ObjectNode spec = TelemetryStack.JSON.createObjectNode();
    spec.put("url", edgeUrl);
    spec.put("via", via);
    ArrayNode ds = spec.putArray("devices");
    for (Map<String, String> d : devices) {
      ObjectNode o = ds.addObject();
      d.forEach(o::put);
    }
    spec.putObject("error").put("type", type).put("message", message).put("stack", stack);
    Path script = Files.createTempFile("report-errors", ".cjs");
    try (InputStream in = OtelJs.class.getResourceAsStream("/otel/report-errors.cjs")) {
      Files.write(script, in.readAllBytes());
    }
    ProcessBuilder pb = new ProcessBuilder("node", script.toString(), TelemetryStack.JSON.writeValueAsString(spec)).redirectErrorStream(true);
    pb.environment().put("NODE_PATH", modules().toString());
    Process p = pb.start();
    try {
      // the output is small (a line per device): read it to the end, then the exit status
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      boolean done = p.waitFor(60, TimeUnit.SECONDS);
      assertThat(done).as("the Node script did not finish within 60 s: %s", out).isTrue();
      assertThat(p.exitValue()).as("the Node script (%s): %s", via, out).isZero();
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(script);
    }
  }
}
