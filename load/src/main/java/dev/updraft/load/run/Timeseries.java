package dev.updraft.load.run;

import dev.updraft.load.traffic.Profile;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The long-format time series of a run: {@code t_seconds,source,metric,scenario,value}, as xprem's
 * {@code *-timeseries.csv}. Latency percentiles are per interval (the requests completed in that
 * interval), never cumulative. Thread-safe (appends are synchronized).
 */
public final class Timeseries {
  static final String HEADER = "t_seconds,source,metric,scenario,value";

  public record Row(double t, String source, String metric, String scenario, double value) {}

  private final List<Row> rows = new ArrayList<>();

  public synchronized void add(double t, String source, String metric, String scenario, double value) {
    rows.add(new Row(t, source, metric, scenario, value));
  }

  public synchronized void addAll(List<Row> more) {
    rows.addAll(more);
  }

  public synchronized List<Row> rows() {
    List<Row> r = new ArrayList<>(rows);
    r.sort((a, b) -> Double.compare(a.t(), b.t()));
    return r;
  }

  /** The name of the phase(s) active at run time {@code t}, or {@code idle}. */
  static String scenarioAt(Profile profile, double t) {
    StringBuilder b = new StringBuilder();
    for (Profile.Phase p : profile.phases()) {
      if (t >= p.startS() && t < p.endS()) {
        if (b.length() > 0) {
          b.append('+');
        }
        b.append(p.name());
      }
    }
    return b.length() == 0 ? "idle" : b.toString();
  }

  public void write(Path file) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(HEADER);
      w.write('\n');
      for (Row r : rows()) {
        w.write(format(r.t()));
        w.write(',');
        w.write(csv(r.source()));
        w.write(',');
        w.write(csv(r.metric()));
        w.write(',');
        w.write(csv(r.scenario()));
        w.write(',');
        w.write(format(r.value()));
        w.write('\n');
      }
    }
  }

  public static String format(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%.3f", v);
  }

  private static String csv(String s) {
    if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0) {
      return '"' + s.replace("\"", "\"\"") + '"';
    }
    return s;
  }

  /** Reads a file written by {@link #write} (quoted fields allowed). */
  public static Timeseries read(Path file) throws IOException {
    Timeseries ts = new Timeseries();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
      throw new IOException("not a timeseries CSV (header must be " + HEADER + "): " + file);
    }
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isEmpty()) {
        continue;
      }
      List<String> f = splitCsv(line);
      if (f.size() != 5) {
        throw new IOException("line " + (i + 1) + " has " + f.size() + " fields, expected 5: " + file);
      }
      double value = f.get(4).isEmpty() ? Double.NaN : Double.parseDouble(f.get(4));
      ts.add(Double.parseDouble(f.get(0)), f.get(1), f.get(2), f.get(3), value);
    }
    return ts;
  }

  static List<String> splitCsv(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cur.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    out.add(cur.toString());
    return out;
  }
}
