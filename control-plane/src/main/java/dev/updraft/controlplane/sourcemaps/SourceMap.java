package dev.updraft.controlplane.sourcemaps;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A parsed source map v3 (https://tc39.es/ecma426/): {@code version} 3, {@code sources} (with {@code sourceRoot}),
 * {@code names} and the base64 VLQ {@code mappings}, or an index map of {@code sections} (each an offset and an
 * embedded map; a section by {@code url} is refused). Every index in the mappings is checked when parsed, so a lookup
 * never fails. Immutable; thread-safe.
 */
public final class SourceMap {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int[] BASE64 = new int[128];

  static {
    Arrays.fill(BASE64, -1);
    String chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < chars.length(); i++) {
      BASE64[chars.charAt(i)] = i;
    }
  }

  private final String[] sources;
  private final String[] names;
  /** Per generated line (0-based), the index of its first segment; one more entry than lines. */
  private final int[] lineStart;
  private final int[] genCol;
  private final int[] src;
  private final int[] origLine;
  private final int[] origCol;
  private final int[] name;
  /** An index map's sections, by offset; null for a plain map. */
  private final List<Section> sections;
  private final long bytes;

  private record Section(int line, int column, SourceMap map) {}

  private SourceMap(String[] sources, String[] names, int[] lineStart, Segments s, List<Section> sections, long bytes) {
    this.sources = sources;
    this.names = names;
    this.lineStart = lineStart;
    this.genCol = s == null ? null : s.genCol;
    this.src = s == null ? null : s.src;
    this.origLine = s == null ? null : s.origLine;
    this.origCol = s == null ? null : s.origCol;
    this.name = s == null ? null : s.name;
    this.sections = sections;
    this.bytes = bytes;
  }

  /** Parses {@code json}; refuses what is not JSON, not version 3, or has an index or value out of range. */
  public static SourceMap parse(byte[] json) throws InvalidSourceMapException {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new InvalidSourceMapException("not JSON: " + e.getOriginalMessage() + " at line " + e.getLocation().getLineNr()
          + ", column " + e.getLocation().getColumnNr());
    } catch (IOException e) {
      throw new InvalidSourceMapException("not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new InvalidSourceMapException("not a source map: the JSON is not an object");
    }
    return parse(root, "", 0);
  }

  private static SourceMap parse(JsonNode root, String where, int depth) throws InvalidSourceMapException {
    JsonNode version = root.get("version");
    if (version == null || !version.isInt() || version.intValue() != 3) {
      throw new InvalidSourceMapException(where + "'version' must be 3 (source map v3), not " + version);
    }
    JsonNode sections = root.get("sections");
    if (sections != null) {
      return index(sections, where, depth);
    }
    String root0 = text(root.get("sourceRoot"));
    String[] sources = strings(root.get("sources"), where + "sources", true);
    if (root0 != null && !root0.isEmpty()) {
      for (int i = 0; i < sources.length; i++) {
        if (sources[i] != null) {
          sources[i] = root0 + (root0.endsWith("/") ? "" : "/") + sources[i];
        }
      }
    }
    JsonNode namesNode = root.get("names");
    String[] names = namesNode == null ? new String[0] : strings(namesNode, where + "names", false);
    JsonNode mappings = root.get("mappings");
    if (mappings == null || !mappings.isTextual()) {
      throw new InvalidSourceMapException(where + "'mappings' must be a string");
    }
    Segments s = new Segments();
    int[] lineStart = decode(mappings.textValue(), sources.length, names.length, s, where);
    long bytes = 64L + 20L * s.size + 4L * lineStart.length;
    for (String x : sources) {
      bytes += x == null ? 8 : 40 + 2L * x.length();
    }
    for (String x : names) {
      bytes += 40 + 2L * x.length();
    }
    s.trim();
    return new SourceMap(sources, names, lineStart, s, null, bytes);
  }

  private static SourceMap index(JsonNode sections, String where, int depth) throws InvalidSourceMapException {
    if (depth > 0) {
      throw new InvalidSourceMapException(where + "a section's map has 'sections' itself; index maps cannot nest");
    }
    if (!sections.isArray()) {
      throw new InvalidSourceMapException("'sections' must be an array");
    }
    List<Section> out = new ArrayList<>();
    long bytes = 64;
    int i = 0;
    for (JsonNode sec : sections) {
      String at = "sections[" + i + "].";
      JsonNode off = sec.get("offset");
      JsonNode map = sec.get("map");
      if (off == null || !off.path("line").isInt() || !off.path("column").isInt()
          || off.get("line").intValue() < 0 || off.get("column").intValue() < 0) {
        throw new InvalidSourceMapException(at + "offset must be {line, column} with integers >= 0");
      }
      if (map == null || !map.isObject()) {
        throw new InvalidSourceMapException(at + "map must be an embedded source map object" + (sec.has("url") ? " ('url' sections are not supported)" : ""));
      }
      Section s = new Section(off.get("line").intValue(), off.get("column").intValue(), parse(map, at + "map.", depth + 1));
      if (!out.isEmpty()) {
        Section prev = out.get(out.size() - 1);
        if (s.line < prev.line || (s.line == prev.line && s.column < prev.column)) {
          throw new InvalidSourceMapException(at + "offset comes before the previous section's; sections must be in order");
        }
      }
      out.add(s);
      bytes += s.map.bytes;
      i++;
    }
    return new SourceMap(null, null, null, null, List.copyOf(out), bytes);
  }

  private static String text(JsonNode n) {
    return n == null || !n.isTextual() ? null : n.textValue();
  }

  private static String[] strings(JsonNode n, String field, boolean nullable) throws InvalidSourceMapException {
    if (n == null || !n.isArray()) {
      throw new InvalidSourceMapException("'" + field + "' must be an array of strings");
    }
    String[] out = new String[n.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode e = n.get(i);
      if (e.isTextual()) {
        out[i] = e.textValue();
      } else if (!(nullable && e.isNull())) {
        throw new InvalidSourceMapException("'" + field + "'[" + i + "] must be a string, not " + e.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    return out;
  }

  /** Decodes {@code mappings} into {@code s}; returns the segment index at which each generated line starts. */
  private static int[] decode(String m, int sourceCount, int nameCount, Segments s, String where) throws InvalidSourceMapException {
    Segments.Ints starts = new Segments.Ints();
    starts.add(0);
    int pos = 0;
    int n = m.length();
    int col = 0;
    int srcI = 0;
    int line = 0;
    int oCol = 0;
    int nameI = 0;
    int genLine = 0;
    int lineFirst = 0;
    int[] fields = new int[6];
    while (pos < n) {
      char c = m.charAt(pos);
      if (c == ';') {
        sortLine(s, lineFirst);
        starts.add(s.size);
        lineFirst = s.size;
        genLine++;
        col = 0;
        pos++;
        continue;
      }
      if (c == ',') {
        pos++;
        continue;
      }
      int count = 0;
      while (pos < n && m.charAt(pos) != ',' && m.charAt(pos) != ';') {
        if (count == 5) {
          throw new InvalidSourceMapException(where + "mappings: a segment at offset " + pos + " (generated line " + (genLine + 1)
              + ") has more than 5 fields");
        }
        long v = 0;
        int shift = 0;
        boolean more = true;
        while (more) {
          if (pos >= n) {
            throw new InvalidSourceMapException(where + "mappings: a VLQ value is cut off at the end (offset " + pos + ")");
          }
          char d = m.charAt(pos);
          int digit = d < 128 ? BASE64[d] : -1;
          if (digit < 0) {
            throw new InvalidSourceMapException(where + "mappings: '" + d + "' at offset " + pos + " is not a base64 digit");
          }
          if (shift > 30) {
            throw new InvalidSourceMapException(where + "mappings: the VLQ value at offset " + pos + " is longer than 32 bits");
          }
          v |= (long) (digit & 31) << shift;
          shift += 5;
          more = (digit & 32) != 0;
          pos++;
        }
        long value = (v & 1) == 1 ? -(v >> 1) : v >> 1;
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
          throw new InvalidSourceMapException(where + "mappings: the VLQ value before offset " + pos + " is out of range");
        }
        fields[count++] = (int) value;
      }
      if (count != 1 && count != 4 && count != 5) {
        throw new InvalidSourceMapException(where + "mappings: a segment before offset " + pos + " (generated line " + (genLine + 1)
            + ") has " + count + " fields; a segment has 1, 4 or 5");
      }
      col += fields[0];
      if (col < 0) {
        throw new InvalidSourceMapException(where + "mappings: generated column " + col + " < 0 on generated line " + (genLine + 1));
      }
      if (count == 1) {
        s.add(col, -1, 0, 0, -1);
        continue;
      }
      srcI += fields[1];
      line += fields[2];
      oCol += fields[3];
      if (srcI < 0 || srcI >= sourceCount) {
        throw new InvalidSourceMapException(where + "mappings: source index " + srcI + " is out of range (" + sourceCount
            + " sources) on generated line " + (genLine + 1));
      }
      if (line < 0 || oCol < 0) {
        throw new InvalidSourceMapException(where + "mappings: original line " + line + " or column " + oCol + " < 0 on generated line " + (genLine + 1));
      }
      int nm = -1;
      if (count == 5) {
        nameI += fields[4];
        if (nameI < 0 || nameI >= nameCount) {
          throw new InvalidSourceMapException(where + "mappings: name index " + nameI + " is out of range (" + nameCount
              + " names) on generated line " + (genLine + 1));
        }
        nm = nameI;
      }
      s.add(col, srcI, line, oCol, nm);
    }
    sortLine(s, lineFirst);
    starts.add(s.size);
    return starts.toArray();
  }

  /** Segments of one line are kept by generated column (they nearly always come so). */
  private static void sortLine(Segments s, int from) {
    for (int i = from + 1; i < s.size; i++) {
      if (s.genCol[i] < s.genCol[i - 1]) {
        s.sortRange(from, s.size);
        return;
      }
    }
  }

  /**
   * The original position of generated {@code line} (1-based) and {@code column} (0-based): the segment of that line
   * with the greatest column at or before it (Mozilla's {@code GREATEST_LOWER_BOUND}); null when there is none or it
   * names no source.
   */
  public Original lookup(int line, int column) {
    if (line < 1 || column < 0) {
      return null;
    }
    if (sections != null) {
      Section hit = null;
      for (Section s : sections) {
        if (s.line < line - 1 || (s.line == line - 1 && s.column <= column)) {
          hit = s;
        } else {
          break;
        }
      }
      if (hit == null) {
        return null;
      }
      int l = line - hit.line;
      int c = line - 1 == hit.line ? column - hit.column : column;
      return hit.map.lookup(l, c);
    }
    int g = line - 1;
    if (g >= lineStart.length - 1) {
      return null;
    }
    int lo = lineStart[g];
    int hi = lineStart[g + 1] - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (genCol[mid] <= column) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0 || src[found] < 0) {
      return null;
    }
    return new Original(sources[src[found]], origLine[found] + 1, origCol[found], name[found] < 0 ? null : names[name[found]]);
  }

  /** Roughly the heap this map holds (for the cache's bound). */
  public long bytes() {
    return bytes;
  }
}
