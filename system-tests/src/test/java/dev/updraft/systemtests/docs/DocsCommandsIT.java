package dev.updraft.systemtests.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the shell blocks of {@code docs/getting-started.md} against a real control plane, edge and
 * ingester, in order, as a reader would: every {@code ./updraft} line through the real CLI (it must
 * succeed), every {@code curl} line as an HTTP request (it must answer 200), every JSON block must parse.
 * {@code ./updraft dev} and {@code export} lines are what this test does itself; {@code npx expo export}
 * is replaced by the real export output in the fixtures. Any other command fails the test, so the page
 * cannot grow a snippet nobody runs.
 */
@ExtendWith(RealInfrastructure.class)
class DocsCommandsIT {
  @TempDir Path work;

  @Test
  void gettingStartedCommandsWorkAsWritten(Infra infra) throws Exception {
    Path doc = DocBlocks.repoRoot().resolve("docs/getting-started.md");
    List<DocBlocks.Block> blocks = DocBlocks.read(doc);
    assertThat(blocks).as("shell blocks in %s", doc).isNotEmpty();
    try (Stack stack = Stack.start(infra, work.resolve("data"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      String lastGroupId = null;
      int exports = 0;
      int ran = 0;
      for (DocBlocks.Block b : blocks) {
        if (b.language().equals("json")) {
          JsonNode json = new ObjectMapper().readTree(b.text());
          String url = json.at("/expo/updates/url").asText(null);
          if (url != null) {
            assertThat(url).as("app.json updates.url points at the edge's manifest route").endsWith("/apps/demo/manifest");
          }
          continue;
        }
        for (String line : b.lines()) {
          List<String> words = DocBlocks.words(line);
          String cmd = words.get(0);
          if (line.startsWith("./updraft dev") || cmd.equals("export")) {
            continue; // the test runs the stack and sets the server and token itself
          }
          if (line.startsWith("npx expo export")) {
            copyExport(exports++ == 0 ? Fixtures.update1() : Fixtures.update2(), work.resolve("dist"));
            continue;
          }
          if (line.startsWith("npx expo config")) {
            assertThat(work.resolve("dist/expoConfig.json")).as("the fixture export carries expoConfig.json").exists();
            continue;
          }
          if (cmd.equals("./updraft")) {
            List<String> args = new ArrayList<>();
            for (int i = 1; i < words.size(); i++) {
              boolean flagValue = words.get(i - 1).startsWith("--");
              args.add(flagValue ? rewrite(words.get(i), lastGroupId) : words.get(i));
            }
            CliRunner.Result r = cli.run(withJson(args));
            // a device shows up once its check-in went edge -> Kafka -> ingester -> PostgreSQL
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            while (words.get(1).equals("devices") && r.err().contains("[device-not-found]") && System.nanoTime() < deadline) {
              Thread.sleep(100);
              r = cli.run(withJson(args));
            }
            assertThat(r.status()).as("`%s` failed: %s", line, r.err()).isZero();
            JsonNode out = r.out().isBlank() ? null : r.json();
            if (words.get(1).equals("publish") && out != null) {
              lastGroupId = out.path("groupId").asText();
            }
            ran++;
            continue;
          }
          if (cmd.equals("curl")) {
            String url = null;
            List<String> headers = new ArrayList<>();
            for (int i = 1; i < words.size(); i++) {
              String w = words.get(i);
              if (w.equals("-H")) {
                String[] kv = words.get(++i).split(":", 2);
                headers.add(kv[0].trim());
                headers.add(kv[1].trim());
              } else if (!w.startsWith("-")) {
                url = rewriteUrl(w, stack);
              }
            }
            var response = Http.get(url, headers.toArray(new String[0]));
            assertThat(response.statusCode()).as("`%s`: %s", line, response.body()).isEqualTo(200);
            assertThat(response.body()).contains("name=\"manifest\"");
            ran++;
            continue;
          }
          throw new AssertionError("docs/getting-started.md has a command this test cannot check: " + line);
        }
      }
      assertThat(ran).as("commands run").isGreaterThanOrEqualTo(8);
    }
  }

  private String[] withJson(List<String> args) {
    List<String> a = new ArrayList<>(args);
    a.add("--json");
    return a.toArray(new String[0]);
  }

  /** Paths the reader would have in their project folder live in the test's work dir. */
  private String rewrite(String word, String groupId) {
    if (word.equals("<group id>")) {
      assertThat(groupId).as("a publish printed a group id before it is used").isNotNull();
      return groupId;
    }
    if (word.equals("keys") || word.equals("dist") || word.startsWith("keys/") || word.startsWith("dist/")) {
      return work.resolve(word).toString();
    }
    return word;
  }

  private static String rewriteUrl(String url, Stack stack) {
    return url.replace("http://127.0.0.1:3000", stack.edgeUrl()).replace("http://127.0.0.1:8080", stack.controlUrl());
  }

  private static void copyExport(Path from, Path to) throws IOException {
    if (Files.exists(to)) {
      try (Stream<Path> s = Files.walk(to)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
