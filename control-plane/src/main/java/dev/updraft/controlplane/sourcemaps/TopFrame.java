package dev.updraft.controlplane.sourcemaps;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The top frame of a JavaScript stack trace with its position, read as the ingester reads it to group errors (the
 * first line in a V8/Hermes or JavaScriptCore form). Hermes without debug info prints
 * {@code at fn (address at file:1:offset)}: line 1 and the bytecode offset, which is the generated column of the
 * Hermes source map {@code expo export --source-maps} writes, so it is looked up as is; other engines print 1-based
 * columns, looked up one less.
 *
 * @param function as printed, or {@code <anonymous>}
 * @param file as printed (URL or path)
 * @param line 1-based
 * @param column the column as printed
 * @param hermesOffset whether {@code column} is a Hermes bytecode offset ({@code address at})
 */
public record TopFrame(String function, String file, int line, int column, boolean hermesOffset) {
  private static final Pattern V8 = Pattern.compile("^\\s*at\\s+(?:(.+?)\\s+\\()?(address at\\s+)?(.+?):(\\d+):(\\d+)\\)?\\s*$");
  private static final Pattern V8_ANY = Pattern.compile("^\\s*at\\s+.+$");
  private static final Pattern JSC = Pattern.compile("^\\s*([^@\\s]*)@(.+?):(\\d+):(\\d+)\\s*$");
  private static final Pattern JSC_ANY = Pattern.compile("^\\s*([^@\\s]*)@(.+?)\\s*$");

  /** The top frame of {@code stack} when it has a line and column; null otherwise (no frame, or one without a position). */
  public static TopFrame of(String stack) {
    if (stack == null) {
      return null;
    }
    for (String l : stack.split("\n", 64)) {
      Matcher m = V8.matcher(l);
      if (m.matches()) {
        String fn = m.group(1) == null || m.group(1).isBlank() ? "<anonymous>" : m.group(1).trim();
        return make(fn, m.group(3), m.group(4), m.group(5), m.group(2) != null);
      }
      if (V8_ANY.matcher(l).matches()) {
        return null; // the top frame, without a position (e.g. "at forEach (native)")
      }
      m = JSC.matcher(l);
      if (m.matches()) {
        return make(m.group(1).isBlank() ? "<anonymous>" : m.group(1), m.group(2), m.group(3), m.group(4), false);
      }
      if (JSC_ANY.matcher(l).matches()) {
        return null;
      }
    }
    return null;
  }

  private static TopFrame make(String fn, String file, String line, String col, boolean hermes) {
    try {
      return new TopFrame(fn, file.trim(), Integer.parseInt(line), Integer.parseInt(col), hermes);
    } catch (NumberFormatException e) {
      return null; // more digits than an int: not a position any map has
    }
  }

  /** The generated column to look up (0-based). */
  public int lookupColumn() {
    return hermesOffset ? column : column - 1;
  }

  /** The frame as the console shows it minified: {@code fn (file:line:column)}. */
  public String minified() {
    return function + " (" + file + ":" + line + ":" + column + ")";
  }
}
