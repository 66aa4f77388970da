package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Help per command, typo suggestions, one-line usage errors, exit statuses and the completion script. */
class CliHelpTest {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... args) {
    out.reset();
    err.reset();
    return Cli.run(args, Map.of("UPDRAFT_TOKEN", "t"), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), ms -> {}, false);
  }

  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void publishHelpShowsPublishsFlagsOnly() {
    assertThat(run("publish", "--help")).isZero();
    assertThat(out()).startsWith("Usage: updraft publish")
        .contains("--rollout-percentage", "--guard-window", "--runtime-version", "--dist", "--no-progress", "--server", "--json")
        .doesNotContain("--to-update", "--token-id", "--client-id", "apps create");
    assertThat(out()).contains("exit status: 0 ok; 1 the server or the files refused").contains("2 a usage error");
    assertThat(err()).isEmpty();
    // the same through help, and -h
    String viaHelp = out();
    assertThat(run("help", "publish")).isZero();
    assertThat(out()).isEqualTo(viaHelp);
    assertThat(run("publish", "-h", "--app", "a")).isZero();
    assertThat(out()).isEqualTo(viaHelp);
    assertThat(run("apps", "create", "--help")).isZero();
    assertThat(out()).startsWith("Usage: updraft apps create").contains("--certificate").doesNotContain("--rollout-percentage");
  }

  @Test
  void topLevelHelpListsEveryCommandAndTheExitStatuses() {
    assertThat(run("--help")).isZero();
    String help = out();
    for (String command : new String[] {"apps create", "keys generate", "tokens create", "publish", "rollback", "rollout", "channel",
        "channels", "channels pause|resume", "branches", "audit", "updates", "update", "insights", "devices get", "completion bash|zsh", "help"}) {
      assertThat(help).contains(" " + command + " ");
    }
    assertThat(help).contains("exit status: 0 ok").contains("2 a usage error");
    assertThat(run("help")).isZero();
    assertThat(out()).isEqualTo(help);
    assertThat(run("apps", "--help")).isZero();
    assertThat(out()).contains("create").contains("list").contains("show");
  }

  @Test
  void aMistypedFlagIsOneLineWithTheFlagItMeant() {
    assertThat(run("publish", "--app", "a", "--branch", "b", "--dist", "d", "--rollout-percent", "5")).isEqualTo(2);
    assertThat(err()).isEqualTo("error: unknown flag for publish: --rollout-percent; did you mean --rollout-percentage?\n");
    // named before the required flags it may have been meant as
    assertThat(run("publish", "--app", "a", "--rollout-percent=5")).isEqualTo(2);
    assertThat(err()).isEqualTo("error: unknown flag for publish: --rollout-percent; did you mean --rollout-percentage?\n");
    assertThat(run("rollout", "--app", "a", "--update", "g", "--percentag", "5")).isEqualTo(2);
    assertThat(err()).contains("did you mean --percentage?");
    assertThat(run("publsh")).isEqualTo(2);
    assertThat(err()).isEqualTo("error: unknown command 'publsh'; did you mean publish?\n");
    // nothing close: no guess
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(err()).doesNotContain("did you mean").contains("unknown command 'frobnicate'");
    assertThat(err().lines()).hasSize(1);
    // --help does not hide a mistyped command or flag
    assertThat(run("frobnicate", "--help")).isEqualTo(2);
    assertThat(err()).contains("unknown command 'frobnicate'");
    assertThat(run("publish", "--rollout-percent", "5", "--help")).isEqualTo(2);
    assertThat(err()).contains("did you mean --rollout-percentage?");
  }

  @Test
  void usageErrorsAreOneLineAndExitWith2() {
    String[][] cases = {
      {"publish", "--app", "a"},
      {"publish", "--app"},
      {"audit", "--app", "a", "--app", "b"},
      {"audit", "--app", "a", "--limit", "many"},
      {"apps"},
      {"apps", "frob"},
      {"apps", "list", "extra"},
      {"completion", "fish"},
      {"keys", "generate", "--out", "x", "--validity-years", "99"},
    };
    String[] expected = {
      "--branch is required; so is --dist",
      "--app needs a value",
      "--app given twice",
      "--limit must be a whole number: got 'many'",
      "missing apps subcommand (create, list, show, update, delete)",
      "unknown apps subcommand 'frob' (create, list, show, update, delete)",
      "apps list takes no argument extra",
      "no completion for 'fish'",
      "--validity-years must be between 1 and 50",
    };
    for (int i = 0; i < cases.length; i++) {
      assertThat(run(cases[i])).as(String.join(" ", cases[i])).isEqualTo(2);
      assertThat(err()).as(String.join(" ", cases[i])).startsWith("error: " + expected[i]).contains("--help");
      assertThat(err().lines()).as(String.join(" ", cases[i])).hasSize(1);
    }
  }

  @Test
  void flagValuesMayLookLikeFlagsOrCommands() {
    // the value of --message is whatever follows it, as with the old parser; the run fails later, reading the export
    assertThat(run("publish", "--app", "a", "--branch", "b", "--dist", "/nonexistent", "--message", "--json", "--server", "http://127.0.0.1:1"))
        .isEqualTo(1);
    assertThat(err()).contains("metadata.json");
    assertThat(run("publish", "--app", "publish", "--branch", "apps", "--dist", "/nonexistent", "--server", "http://127.0.0.1:1")).isEqualTo(1);
    assertThat(err()).contains("metadata.json");
  }

  @Test
  void printsABashCompletionScriptThatZshTakesThroughBashcompinit() throws Exception {
    assertThat(run("completion", "bash")).isZero();
    String bash = out();
    assertThat(bash).startsWith("#!/usr/bin/env bash").contains("complete -F _complete_updraft")
        .contains("--rollout-percentage").contains("publish").contains("tokens").contains("completion")
        .contains("bashcompinit");
    // the launcher's commands are completed too
    assertThat(bash).contains("control-plane").contains("ingest").contains("replay");
    assertThat(run("completion", "zsh")).isZero();
    assertThat(out()).isEqualTo(bash);
    assertThat(run("completion", "bash", "--json")).isZero();
    var json = Api.JSON.readTree(out.toByteArray());
    assertThat(json.get("shell").asText()).isEqualTo("bash");
    assertThat(json.get("script").asText()).isEqualTo(bash);
    assertThat(run("completion")).isEqualTo(2);
    assertThat(err()).contains("updraft completion bash|zsh");
  }

  @Test
  void theCertificateIsAJsonObjectWithJson() throws Exception {
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/apps/demo/certificate", x -> {
      byte[] b = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".getBytes(StandardCharsets.US_ASCII);
      x.sendResponseHeaders(200, b.length);
      x.getResponseBody().write(b);
      x.close();
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(run("keys", "certificate", "--app", "demo", "--server", url)).isZero();
      assertThat(out()).startsWith("-----BEGIN CERTIFICATE-----");
      assertThat(run("keys", "certificate", "--app", "demo", "--server", url, "--json")).isZero();
      var json = Api.JSON.readTree(out.toByteArray());
      assertThat(json.get("appId").asText()).isEqualTo("demo");
      assertThat(json.get("certificatePem").asText()).startsWith("-----BEGIN CERTIFICATE-----");
      // the global flags may come before the command too
      assertThat(run("--json", "--server", url, "keys", "certificate", "--app", "demo")).isZero();
      assertThat(Api.JSON.readTree(out.toByteArray()).get("appId").asText()).isEqualTo("demo");
    } finally {
      server.stop(0);
    }
  }
}
