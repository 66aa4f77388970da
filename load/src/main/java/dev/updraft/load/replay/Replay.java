package dev.updraft.load.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.common.ConfigException;
import dev.updraft.load.traffic.Arrival;
import dev.updraft.load.traffic.ArrivalSource;
import dev.updraft.load.traffic.Profile;
import dev.updraft.load.traffic.Recorded;
import dev.updraft.load.traffic.Windows;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays a JSON-lines file of recorded device requests, open-model:
 * {@code {"t":<epoch ms>,"path":"/apps/demo/manifest","query":"","headers":{"expo-platform":"ios",...}}}
 * (what an edge writes with {@code --record-requests}). The i-th request is sent at
 * {@code (t_i - t_0) / speed} after the start, whatever the server does. The file is read as it is
 * replayed, so it may be larger than memory. Owned by the scheduler thread.
 */
public final class Replay implements ArrivalSource {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BufferedReader reader;
  private final double speed;
  private final Windows windows;
  private long t0 = Long.MIN_VALUE;
  private int line;
  private final Path file;

  public Replay(Path file, double speed, Windows windows) {
    this.file = file;
    this.speed = speed;
    this.windows = windows;
    try {
      this.reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read replay file " + file, e);
    }
  }

  /** Parses one line; throws {@link ConfigException} naming the line when it is not a recorded request. */
  public static Recorded parse(String text, Path file, int line) {
    JsonNode n;
    try {
      n = JSON.readTree(text);
    } catch (IOException e) {
      throw new ConfigException("replay file " + file + " line " + line + " is not JSON: " + e.getMessage());
    }
    JsonNode t = n == null ? null : n.get("t");
    JsonNode path = n == null ? null : n.get("path");
    if (t == null || !t.canConvertToLong() || path == null || !path.isTextual() || !path.asText().startsWith("/")) {
      throw new ConfigException("replay file " + file + " line " + line + " needs \"t\" (epoch ms) and \"path\" (starting with /)");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    JsonNode h = n.get("headers");
    if (h != null && h.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = h.properties().iterator();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isTextual()) {
          headers.put(e.getKey().toLowerCase(java.util.Locale.ROOT), e.getValue().asText());
        }
      }
    }
    JsonNode q = n.get("query");
    return new Recorded(t.asLong(), path.asText(), q == null || !q.isTextual() ? "" : q.asText(), headers);
  }

  /** A one-phase profile spanning the file at {@code speed}, with its mean rate (for the result files). */
  public static Profile profileOf(Path file, double speed) {
    long first = Long.MIN_VALUE;
    long lastT = 0;
    long count = 0;
    int line = 0;
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String s;
      while ((s = r.readLine()) != null) {
        line++;
        if (s.isBlank()) {
          continue;
        }
        Recorded rec = parse(s, file, line);
        if (first == Long.MIN_VALUE) {
          first = rec.t();
        }
        if (rec.t() < lastT) {
          throw new ConfigException("replay file " + file + " line " + line + ": t goes backwards (" + rec.t() + " < " + lastT + ")");
        }
        lastT = rec.t();
        count++;
      }
    } catch (IOException e) {
      throw new ConfigException("replay file not readable: " + file + ": " + e.getMessage());
    }
    if (count == 0) {
      throw new ConfigException("replay file " + file + " holds no requests");
    }
    double span = Math.max(0.001, (lastT - first) / 1000.0 / speed);
    double rate = count / span;
    Profile.Phase p = new Profile.Phase("replay", 0, rate, List.of(new Profile.Stage(span, rate)), 0, false,
        "replay of " + count + " recorded requests at speed " + speed);
    return new Profile("replay", "replay of " + file.getFileName() + " at " + speed + "x", List.of(p), -1);
  }

  @Override
  public Arrival next() {
    try {
      String s;
      while ((s = reader.readLine()) != null) {
        line++;
        if (s.isBlank()) {
          continue;
        }
        Recorded r = parse(s, file, line);
        if (t0 == Long.MIN_VALUE) {
          t0 = r.t();
        }
        long intended = (long) ((r.t() - t0) * 1_000_000L / speed);
        int w = windows.windowOf(0, Math.min(intended / 1e9, windows.get(0).endS()));
        return new Arrival(intended, 0, Math.max(0, w), r);
      }
      reader.close();
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read replay file " + file, e);
    }
  }
}
