package dev.updraft.systemtests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's Markdown (README, docs, module READMEs) points to a file that
 * exists, and every {@code #anchor} into a Markdown file names one of its headings, as GitHub renders them.
 */
class DocLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*$", Pattern.MULTILINE);

  @Test
  void relativeLinksAndAnchorsInTheDocsResolve() throws IOException {
    Path root = RepoFiles.root();
    List<Path> docs;
    try (Stream<Path> s = Files.walk(root)) {
      docs = s.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !root.relativize(p).toString().matches("(^|.*/)(target|node_modules|\\..*)/.*"))
          .toList();
    }
    assertThat(docs).as("Markdown files found").extracting(p -> root.relativize(p).toString())
        .contains("README.md", "docs/operations.md", "docs/getting-started.md");
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path doc : docs) {
      String text = Files.readString(doc);
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String link = m.group(1);
        if (link.matches("^[a-z]+:.*")) {
          continue; // http:, https:, mailto:
        }
        checked++;
        int hash = link.indexOf('#');
        String file = hash < 0 ? link : link.substring(0, hash);
        String anchor = hash < 0 ? null : link.substring(hash + 1);
        Path target = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!Files.exists(target)) {
          broken.add(root.relativize(doc) + ": " + link + " (no such file)");
        } else if (anchor != null && target.toString().endsWith(".md") && !anchors(Files.readString(target)).contains(anchor)) {
          broken.add(root.relativize(doc) + ": " + link + " (no such heading in " + root.relativize(target) + ")");
        }
      }
    }
    assertThat(checked).as("relative links checked").isGreaterThan(20);
    assertThat(broken).as("broken links").isEmpty();
  }

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
  static List<String> anchors(String markdown) {
    List<String> out = new ArrayList<>();
    Matcher h = HEADING.matcher(markdown.replaceAll("(?s)```.*?```", ""));
    while (h.find()) {
      out.add(h.group(1).toLowerCase(java.util.Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
    }
    return out;
  }
}
