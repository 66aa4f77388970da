package dev.updraft.systemtests.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.common.Settings;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.RetentionConfig;
import dev.updraft.launcher.backup.BackupCommands;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The snippets of the other pages, each run or checked against the real thing (getting-started.md has
 * its own test, {@link DocsCommandsIT}): the README's first publish, the key rotation commands and the
 * ingester's retention flags of operations.md, and the API reference's publish body and CLI synopsis.
 */
@ExtendWith(RealInfrastructure.class)
class DocSnippetsIT {
  @TempDir Path work;

  @Test
  void readmeAndOperationsCommandsWorkAsWritten(Infra infra) throws Exception {
    Path root = DocBlocks.repoRoot();
    try (Stack stack = Stack.start(infra, work.resolve("data"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      copy(Fixtures.update1(), work.resolve("dist"));

      // README: keys, app, first publish
      List<String> readme = new ArrayList<>(commands(root.resolve("README.md"), "./updraft "));
      assertThat(readme.remove("./updraft dev")).as("README's run command (the stack this test started)").isTrue();
      assertThat(readme).as("README's publish block").hasSize(3);
      for (String line : readme) {
        run(cli, line, "demo");
      }
      JsonNode updates = cli.json("updates", "--app", "demo");
      assertThat(updates.toString()).as("the README's publish is listed").contains("\"branch\":\"production\"");

      // operations.md: key rotation
      List<String> rotation = commands(root.resolve("docs/operations.md"), "updraft keys ");
      assertThat(rotation).as("operations.md's key rotation block: generate, register, list, retire, certificate").hasSize(5);
      CliRunner.Result last = null;
      for (String line : rotation) {
        last = run(cli, line, "demo");
      }
      String generated = Files.readString(work.resolve("keys-2027/certificate.pem"));
      assertThat(last.out().strip()).as("`keys certificate` prints the certificate just registered").isEqualTo(generated.strip());

      // operations.md: the backup and restore commands name only flags those commands take
      for (String command : List.of("backup", "restore")) {
        List<String> lines = commands(root.resolve("docs/operations.md"), "updraft " + command + " ");
        assertThat(lines).as("operations.md's %s line", command).hasSize(1);
        List<String> w = DocBlocks.words(lines.get(0));
        Settings.parse(w.subList(2, w.size()).toArray(new String[0]), Map.of())
            .rejectUnknown(command.equals("backup") ? BackupCommands.BACKUP_FLAGS : BackupCommands.RESTORE_FLAGS);
      }

      // operations.md: the retention flags, read as the ingester reads them at start
      List<String> retention = commands(root.resolve("docs/operations.md"), "updraft ingest ");
      assertThat(retention).as("operations.md's retention block").hasSize(1);
      List<String> words = DocBlocks.words(retention.get(0));
      Settings flags = Settings.parse(words.subList(2, words.size()).toArray(new String[0]), Map.of());
      RetentionConfig config = IngesterConfig.from(flags).retention();
      assertThat(config.enabled()).as("the documented flags turn retention on").isTrue();
      Duration days90 = Duration.ofDays(90);
      assertThat(config.tables()).as("every table 90 days, the registry 180 and the hourly aggregates 400, as the page says")
          .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(Map.entry("devices", Duration.ofDays(180)), Map.entry("update_receipts", days90),
              Map.entry("update_failures", days90), Map.entry("update_crashes", days90), Map.entry("update_hourly", Duration.ofDays(400)),
              Map.entry("ingest_rejects", days90), Map.entry("error_reports", days90), Map.entry("update_funnel", days90),
              Map.entry("key_asks", days90), Map.entry("patch_outcomes", days90), Map.entry("ingest_dead_letters", days90)));
    }
  }

  @Test
  void theApiReferencesPublishBodyAndCliSynopsisMatchTheServerAndTheCli() throws Exception {
    Path root = DocBlocks.repoRoot();
    Path apiDoc = root.resolve("docs/api/README.md");
    JsonNode body = new ObjectMapper().readTree(blocks(apiDoc, "json").get(0));
    Set<String> documented = new TreeSet<>();
    body.fieldNames().forEachRemaining(documented::add);
    Map<String, Object> spec;
    try (InputStream in = Files.newInputStream(root.resolve("docs/api/openapi.yaml"))) {
      spec = new Yaml().load(in);
    }
    Set<String> accepted = new TreeSet<>(publishRequestProperties(spec));
    assertThat(accepted).as("PublishRequest properties in openapi.yaml").contains("branch", "runtimeVersion", "metadata");
    assertThat(documented).as("the example publish body uses only fields the API accepts").isSubsetOf(accepted);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    dev.updraft.cli.Cli.run(new String[] {"--help"}, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    String docSynopsis = blocks(apiDoc, "").get(0).replace('…', '.').replace("...", ".");
    List<String> usage = out.toString(StandardCharsets.UTF_8).lines().skip(1).filter(l -> !l.isBlank()).toList();
    assertThat(usage).as("the CLI's usage").hasSizeGreaterThan(10);
    for (String line : usage) {
      assertThat(docSynopsis).as("docs/api/README.md's CLI synopsis has the CLI's line").contains(line.replace("...", "."));
    }
  }

  @SuppressWarnings("unchecked")
  private static Set<String> publishRequestProperties(Map<String, Object> spec) {
    Map<String, Object> paths = (Map<String, Object>) spec.get("paths");
    Map<String, Object> post = (Map<String, Object>) ((Map<String, Object>) paths.get("/v1/apps/{app}/updates")).get("post");
    Map<String, Object> schema =
        (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) post.get("requestBody")).get("content"))
            .get("application/json")).get("schema");
    if (schema.containsKey("$ref")) {
      String name = ((String) schema.get("$ref")).substring("#/components/schemas/".length());
      schema = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) spec.get("components")).get("schemas")).get(name);
    }
    return ((Map<String, Object>) schema.get("properties")).keySet();
  }

  /** Runs one documented `updraft ...` line through the real CLI; file arguments live in the work dir. */
  private CliRunner.Result run(CliRunner cli, String line, String app) {
    List<String> words = DocBlocks.words(line);
    List<String> args = new ArrayList<>();
    for (int i = 1; i < words.size(); i++) {
      String w = words.get(i);
      boolean flagValue = words.get(i - 1).startsWith("--");
      if (w.equals("APP")) {
        w = app;
      } else if (flagValue && w.matches("(keys|dist)(-[0-9]+)?(/.*)?")) {
        w = work.resolve(w).toString();
      }
      args.add(w);
    }
    CliRunner.Result r = cli.run(args.toArray(new String[0]));
    assertThat(r.status()).as("`%s` failed: %s", line, r.err()).isZero();
    return r;
  }

  /** The command lines starting with {@code prefix} in the page's sh blocks: continuations joined, comments cut. */
  private static List<String> commands(Path page, String prefix) throws Exception {
    List<String> out = new ArrayList<>();
    for (String block : blocks(page, "sh")) {
      String joined = block.replace("\\\n", " ");
      for (String l : joined.split("\n")) {
        int comment = l.indexOf(" #");
        String line = (comment < 0 ? l : l.substring(0, comment)).strip();
        if (line.startsWith(prefix)) {
          out.add(line);
        }
      }
    }
    return out;
  }

  /** The text of each block fenced with {@code language} ("" for no language). */
  private static List<String> blocks(Path page, String language) throws Exception {
    List<String> out = new ArrayList<>();
    String lang = null;
    StringBuilder text = new StringBuilder();
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        if (lang == null) {
          lang = line.substring(3).trim();
          text.setLength(0);
        } else {
          if (lang.equals(language)) {
            out.add(text.toString());
          }
          lang = null;
        }
      } else if (lang != null) {
        text.append(line).append('\n');
      }
    }
    assertThat(out).as("%s blocks in %s", language.isEmpty() ? "plain" : language, page).isNotEmpty();
    return out;
  }

  private static void copy(Path from, Path to) throws Exception {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path f : (Iterable<Path>) s::iterator) {
        Path t = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(t);
        } else {
          Files.copy(f, t);
        }
      }
    }
  }
}
