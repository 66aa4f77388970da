package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Heap per live group for the fixture's shape (two platforms, manifests of the fixture's size with its
 * public config, signed with one key): an estimate by walking the image's object graph, at most 8 KB.
 * After 300 publishes on each of 10 lines, the image holds the retention window of each line, not the
 * history. The lead's benchmark measures heap after GC on a real edge (load/bench/state-scale.sh).
 */
class ImageHeapTest {
  static final String SIG = "sig=\"" + "Q".repeat(344) + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";

  static String manifest(String id, String config) {
    StringBuilder assets = new StringBuilder();
    for (int i = 0; i < 2; i++) {
      assets.append(i == 0 ? "" : ",").append("{\"hash\":\"").append("h".repeat(43)).append("\",\"key\":\"").append("k".repeat(32))
          .append("\",\"contentType\":\"image/png\",\"fileExtension\":\".png\",\"url\":\"https://cdn.example.com/assets/")
          .append("k".repeat(32)).append("\"}");
    }
    return "{\"id\":\"" + id + "\",\"createdAt\":\"2026-11-30T10:00:05.000Z\",\"runtimeVersion\":\"1.0.0\",\"launchAsset\":{\"hash\":\""
        + "h".repeat(43) + "\",\"key\":\"" + "k".repeat(32) + "\",\"contentType\":\"application/javascript\",\"url\":\"https://cdn.example.com/assets/"
        + "k".repeat(32) + "\"},\"assets\":[" + assets + "],\"metadata\":{\"branchName\":\"main\"},\"extra\":{\"expoClient\":" + config + "}}";
  }

  @Test
  void aLiveGroupOfTheFixturesShapeTakesAtMostEightKilobytes() throws IOException {
    String config = Files.readString(Fixtures.update1().resolve("expoConfig.json")).strip();
    Scenario s = new Scenario().add(new EventPayload.AppCreated("Demo"));
    s.add(new EventPayload.SigningKeyRegistered("main", "PEM", "abc", "{\"type\":\"noUpdateAvailable\"}", SIG, List.of(), null, true));
    int lines = 10;
    int perLine = 300;
    for (int i = 0; i < perLine; i++) {
      for (int l = 0; l < lines; l++) {
        String id = "g" + l + "-" + i;
        List<PlatformUpdate> ps = List.of(
            new PlatformUpdate("ios", id + "-ios", "2026-11-30T10:00:05.000Z", manifest(id + "-ios", config), fresh(SIG), "k", List.of("k"),
                Map.of("main", fresh(SIG))),
            new PlatformUpdate("android", id + "-android", "2026-11-30T10:00:05.000Z", manifest(id + "-android", config), fresh(SIG), "k",
                List.of("k"), Map.of("main", fresh(SIG))));
        s.add(new EventPayload.UpdatePublished(new UpdateGroup(id, UpdateGroup.KIND_UPDATE, "b" + l, "1.0.0", "message " + i, "abc1234",
            "idem-" + id, null, null, ps)));
      }
    }
    ResolveImage image = Scenario.replay(ResolveImage.EMPTY, s.events);
    AppImage app = image.app(Scenario.APP);
    assertThat(app.groupCount()).isEqualTo(lines * AppDelta.WINDOW);
    long heap = deepSize(app);
    long perGroup = heap / app.groupCount();
    System.out.println("image heap: " + heap + " bytes for " + app.groupCount() + " live groups (" + perGroup + " per group; prepared bytes "
        + app.bytes() + ", body " + manifest("x", config).length() + " bytes)");
    System.out.println("  of which prepared " + deepSize(app.prepared) + ", groups " + deepSize(app.groups) + ", table " + deepSize(app.table)
        + ", entries " + deepSize(app.groupOfEntry) + ", lines " + deepSize(app.lines));
    assertThat(perGroup).isLessThanOrEqualTo(8 * 1024);
  }

  /** A copy, as a decoded event has its own strings. */
  private static String fresh(String s) {
    return new String(s.toCharArray());
  }

  /** An estimate of the heap reachable from {@code root} (64-bit JVM, compressed references). */
  static long deepSize(Object root) {
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Object> todo = new ArrayDeque<>();
    todo.push(root);
    long total = 0;
    while (!todo.isEmpty()) {
      Object o = todo.pop();
      if (!seen.add(o)) {
        continue;
      }
      Class<?> c = o.getClass();
      if (c.isArray()) {
        int n = Array.getLength(o);
        Class<?> t = c.getComponentType();
        total += align(16 + (long) n * (t.isPrimitive() ? primitive(t) : 4));
        if (!t.isPrimitive()) {
          for (int i = 0; i < n; i++) {
            push(todo, Array.get(o, i));
          }
        }
      } else if (o instanceof String) {
        total += 24 + align(16 + ((String) o).length());
      } else if (jdk(c)) {
        if (o instanceof Map) {
          Map<?, ?> m = (Map<?, ?>) o;
          total += 48 + align(16 + 4L * Math.max(16, Integer.highestOneBit(Math.max(1, m.size()) * 2))) + 32L * m.size();
          for (Map.Entry<?, ?> en : m.entrySet()) {
            push(todo, en.getKey());
            push(todo, en.getValue());
          }
        } else if (o instanceof Collection) {
          Collection<?> col = (Collection<?>) o;
          total += align(16 + 4L * col.size()) + 16;
          for (Object x : col) {
            push(todo, x);
          }
        } else {
          total += 16;
        }
      } else {
        long size = 12;
        for (Class<?> k = c; k != null && !jdk(k); k = k.getSuperclass()) {
          for (Field f : k.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
              continue;
            }
            size += f.getType().isPrimitive() ? primitive(f.getType()) : 4;
            if (!f.getType().isPrimitive()) {
              f.setAccessible(true);
              try {
                push(todo, f.get(o));
              } catch (IllegalAccessException e) {
                throw new AssertionError(e);
              }
            }
          }
        }
        total += align(size);
      }
    }
    return total;
  }

  private static long align(long n) {
    return (n + 7) & ~7L;
  }

  private static int primitive(Class<?> t) {
    return t == long.class || t == double.class ? 8 : t == int.class || t == float.class ? 4 : t == short.class || t == char.class ? 2 : 1;
  }

  private static void push(Deque<Object> todo, Object o) {
    if (o != null) {
      todo.push(o);
    }
  }

  private static boolean jdk(Class<?> c) {
    String n = c.getName();
    return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.");
  }
}
