package dev.updraft.controlplane.sourcemaps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.Fixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decoder against Mozilla's {@code source-map} (0.8.0, the newest on npm): every expected row of the golden tables was computed by
 * its {@code originalPositionFor} ({@code src/test/resources/sourcemaps/gen.js}), never by this code.
 */
class SourceMapTest {

  record Row(int line, int column, String source, Integer oLine, Integer oColumn, String name) {}

  static List<Row> golden(String resource) throws IOException {
    List<Row> rows = new ArrayList<>();
    try (InputStream in = SourceMapTest.class.getResourceAsStream("/sourcemaps/" + resource)) {
      for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (l.isBlank() || l.startsWith("#")) {
          continue;
        }
        String[] f = l.split("\t", -1);
        rows.add(new Row(Integer.parseInt(f[0]), Integer.parseInt(f[1]), dash(f[2]), f[3].equals("-") ? null : Integer.valueOf(f[3]),
            f[4].equals("-") ? null : Integer.valueOf(f[4]), dash(f[5])));
      }
    }
    return rows;
  }

  private static String dash(String s) {
    return s.equals("-") ? null : s;
  }

  static byte[] resource(String name) throws IOException {
    try (InputStream in = SourceMapTest.class.getResourceAsStream("/sourcemaps/" + name)) {
      return in.readAllBytes();
    }
  }

  /** The Android map of the real {@code expo export --source-maps} fixture. */
  static byte[] androidMap() throws IOException {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(Fixtures.sourceMapsExportZip()))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        if (e.getName().startsWith("_expo/static/js/android/") && e.getName().endsWith(".hbc.map")) {
          return in.readAllBytes();
        }
      }
    }
    throw new IllegalStateException("no Android .hbc.map in " + Fixtures.sourceMapsExportZip());
  }

  private static void matches(SourceMap map, List<Row> rows) {
    assertThat(rows).hasSizeGreaterThan(100);
    for (Row r : rows) {
      Original o = map.lookup(r.line(), r.column());
      Original want = r.source() == null ? null : new Original(r.source(), r.oLine(), r.oColumn(), r.name());
      assertThat(o).as("generated %d:%d", r.line(), r.column()).isEqualTo(want);
    }
  }

  @Test
  void aRealHermesMapFromExpoExportResolvesAsMozillaSourceMapDoes() throws Exception {
    SourceMap map = SourceMap.parse(androidMap());
    List<Row> rows = golden("update-1-android.golden.tsv");

    matches(map, rows);
    assertThat(rows.stream().filter(r -> "/App.js".equals(r.source())).count()).isGreaterThan(50);
  }

  @Test
  void aMapWithSourceRootSeveralLinesAndSegmentsWithoutSourceResolvesAsMozillaSourceMapDoes() throws Exception {
    matches(SourceMap.parse(resource("small-plain.map.json")), golden("small-plain.golden.tsv"));
  }

  @Test
  void anIndexMapOfSectionsResolvesAsMozillaSourceMapDoes() throws Exception {
    matches(SourceMap.parse(resource("small-index.map.json")), golden("small-index.golden.tsv"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "not json",
      "[1,2]",
      "{\"version\":2,\"sources\":[],\"names\":[],\"mappings\":\"\"}",
      "{\"version\":3,\"names\":[],\"mappings\":\"AAAA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"A!AA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAAAA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"ACAA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAAA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAg\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA,gggggggggA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AADA\"}",
      "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"D\"}",
      "{\"version\":3,\"sources\":[1],\"names\":[],\"mappings\":\"\"}",
      "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"url\":\"x.map\"}]}",
      "{\"version\":3,\"sections\":[{\"offset\":{\"line\":2,\"column\":0},\"map\":{\"version\":3,\"sources\":[],\"names\":[],\"mappings\":\"\"}},"
          + "{\"offset\":{\"line\":1,\"column\":0},\"map\":{\"version\":3,\"sources\":[],\"names\":[],\"mappings\":\"\"}}]}",
  })
  void aMalformedMapIsRefusedWithAMessageNeverAnotherException(String json) {
    assertThatThrownBy(() -> SourceMap.parse(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidSourceMapException.class)
        .hasMessageNotContaining("Exception");
  }

  @Test
  void theMessageNamesTheProblem() {
    assertThatThrownBy(() -> SourceMap.parse("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"ACAA\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("source index 1 is out of range (1 sources)");
    assertThatThrownBy(() -> SourceMap.parse("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"A!AA\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("'!' at offset 1 is not a base64 digit");
    assertThatThrownBy(() -> SourceMap.parse("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAAC\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("name index 1 is out of range (0 names)");
  }

  @Test
  void theCacheKeepsTheMostRecentlyUsedMapsWithinItsBound() throws Exception {
    SourceMap small = SourceMap.parse(resource("small-plain.map.json"));
    SourceMapCache cache = new SourceMapCache(small.bytes() * 2);
    cache.put("a", small);
    cache.put("b", SourceMap.parse(resource("small-plain.map.json")));
    cache.get("a");
    cache.put("c", SourceMap.parse(resource("small-plain.map.json")));

    assertThat(cache.get("a")).isSameAs(small);
    assertThat(cache.get("b")).isNull();
    assertThat(cache.bytes()).isLessThanOrEqualTo(small.bytes() * 2);
    SourceMap big = SourceMap.parse(androidMap());
    cache.put("big", big);
    assertThat(cache.get("big")).isNull();
    assertThat(big.bytes()).isGreaterThan(1L << 20);
  }

  @Test
  void hermesFramesAreLookedUpAtTheirBytecodeOffsetOthersAtTheirColumnLessOne() {
    TopFrame h = TopFrame.of("TypeError: x\n    at App (address at index.android.bundle:1:539948)\n    at next (native)");
    TopFrame v8 = TopFrame.of("Error: y\n    at LoginScreen (http://10.0.2.2:8081/index.bundle?platform=android:12:34)");
    TopFrame jsc = TopFrame.of("onPress@main.jsbundle:3:17");

    assertThat(h).isEqualTo(new TopFrame("App", "index.android.bundle", 1, 539948, true));
    assertThat(h.lookupColumn()).isEqualTo(539948);
    assertThat(v8.function()).isEqualTo("LoginScreen");
    assertThat(v8.line()).isEqualTo(12);
    assertThat(v8.lookupColumn()).isEqualTo(33);
    assertThat(jsc).isEqualTo(new TopFrame("onPress", "main.jsbundle", 3, 17, false));
    assertThat(TopFrame.of("Error\n    at forEach (native)\n    at App (x.js:1:2)")).isNull();
    assertThat(TopFrame.of(null)).isNull();
  }
}
