package dev.updraft.systemtests.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Fenced code blocks of a Markdown page, and shell-like word splitting of their lines. */
final class DocBlocks {
  private DocBlocks() {}

  record Block(String language, String text) {
    List<String> lines() {
      List<String> out = new ArrayList<>();
      for (String l : text.split("\n")) {
        if (!l.isBlank() && !l.strip().startsWith("#")) {
          out.add(l.strip());
        }
      }
      return out;
    }
  }

  static Path repoRoot() {
    String p = System.getProperty("updraft.repoRoot");
    return p != null ? Path.of(p) : Path.of("").toAbsolutePath().getParent();
  }

  /** Blocks fenced with three backticks and a language of {@code sh} or {@code json}. */
  static List<Block> read(Path markdown) throws IOException {
    List<Block> blocks = new ArrayList<>();
    String lang = null;
    StringBuilder text = new StringBuilder();
    for (String line : Files.readAllLines(markdown)) {
      if (line.startsWith("```")) {
        if (lang == null) {
          lang = line.substring(3).trim();
          text.setLength(0);
        } else {
          if (lang.equals("sh") || lang.equals("json")) {
            blocks.add(new Block(lang, text.toString()));
          }
          lang = null;
        }
      } else if (lang != null) {
        text.append(line).append('\n');
      }
    }
    return blocks;
  }

  /** Splits like a POSIX shell for the simple lines in our docs: single and double quotes, no expansion. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    char quote = 0;
    boolean inWord = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          w.append(c);
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        inWord = true;
      } else if (c == '<') {
        int end = line.indexOf('>', i);
        w.append(line, i, end + 1);
        i = end;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(w.toString());
          w.setLength(0);
          inWord = false;
        }
      } else {
        w.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(w.toString());
    }
    return words;
  }
}
