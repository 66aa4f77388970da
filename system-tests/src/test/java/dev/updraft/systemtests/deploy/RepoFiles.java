package dev.updraft.systemtests.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The repository's own files (deployment manifests, dashboards, docs), read from the checkout. */
final class RepoFiles {
  private RepoFiles() {}

  static Path root() {
    String p = System.getProperty("updraft.repoRoot");
    Path root = p != null ? Path.of(p) : Path.of("").toAbsolutePath().getParent();
    if (!Files.exists(root.resolve("docker-compose.yml"))) {
      throw new IllegalStateException("repository root not found (no docker-compose.yml in " + root + ")");
    }
    return root;
  }

  /** Every YAML document of a file, as maps (safe loader). */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> yamlDocuments(Path file) throws IOException {
    List<Map<String, Object>> docs = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      for (Object o : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(in)) {
        if (o != null) {
          docs.add((Map<String, Object>) o);
        }
      }
    }
    return docs;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o, String what) {
    if (!(o instanceof Map)) {
      throw new AssertionError(what + " is not a mapping: " + o);
    }
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o, String what) {
    if (!(o instanceof List)) {
      throw new AssertionError(what + " is not a list: " + o);
    }
    return (List<Object>) o;
  }

  /** Follows a path of keys through nested maps; null when absent. */
  static Object at(Object root, String... keys) {
    Object cur = root;
    for (String k : keys) {
      if (!(cur instanceof Map)) {
        return null;
      }
      cur = ((Map<?, ?>) cur).get(k);
    }
    return cur;
  }
}
