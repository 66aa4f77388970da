package dev.updraft.load.run;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A server's own latency histogram as Prometheus exposes it (cumulative {@code <name>_bucket{le="…"}} counts, the
 * edge's {@code updraft_edge_request_seconds}: its service time, request to response written), read from one scrape;
 * the difference of two scrapes is the histogram of the requests served between them, so scraping every second gives
 * a per-second server-side latency next to the generator's. Quantiles are bucket upper bounds (the histogram has no
 * finer resolution): "p99 ≤ 5 ms" is exact, "p99 = 3 ms" is not available. Immutable.
 */
public final class ServerHistogram {
  /** The edge's request-time histogram (seconds). */
  public static final String EDGE_REQUEST_SECONDS = "updraft_edge_request_seconds";

  private static final ServerHistogram EMPTY = new ServerHistogram(new double[0], new long[0]);

  /** Upper bounds in seconds, ascending; the last may be +Inf. */
  private final double[] bounds;
  /** Cumulative counts at each bound. */
  private final long[] cumulative;

  private ServerHistogram(double[] bounds, long[] cumulative) {
    this.bounds = bounds;
    this.cumulative = cumulative;
  }

  /**
   * The buckets of {@code name} in Prometheus text, summed over every label set that is not {@code le} (one histogram
   * per outcome or route adds up to the server's). Empty when the text has none.
   */
  public static ServerHistogram parse(String text, String name) {
    String prefix = name + "_bucket{";
    TreeMap<Double, Long> byBound = new TreeMap<>();
    for (String line : text.split("\n")) {
      String l = line.trim();
      if (!l.startsWith(prefix)) {
        continue;
      }
      int close = l.indexOf('}', prefix.length());
      if (close < 0) {
        continue;
      }
      Double le = le(l.substring(prefix.length(), close));
      String[] rest = l.substring(close + 1).trim().split("\\s+");
      if (le == null || rest.length == 0) {
        continue;
      }
      try {
        long count = (long) Double.parseDouble(rest[0]);
        byBound.merge(le, count, Long::sum);
      } catch (NumberFormatException e) {
        // not a sample line
      }
    }
    double[] b = new double[byBound.size()];
    long[] c = new long[byBound.size()];
    int i = 0;
    for (Map.Entry<Double, Long> e : byBound.entrySet()) {
      b[i] = e.getKey();
      c[i] = e.getValue();
      i++;
    }
    return b.length == 0 ? EMPTY : new ServerHistogram(b, c);
  }

  private static Double le(String labels) {
    for (String p : labels.split(",")) {
      String kv = p.trim();
      if (kv.startsWith("le=\"") && kv.endsWith("\"")) {
        String v = kv.substring(4, kv.length() - 1);
        if (v.equals("+Inf")) {
          return Double.POSITIVE_INFINITY;
        }
        try {
          return Double.parseDouble(v);
        } catch (NumberFormatException e) {
          return null;
        }
      }
    }
    return null;
  }

  /** Requests counted (the +Inf bucket, or the largest bound's). */
  public long count() {
    return cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
  }

  public boolean isEmpty() {
    return bounds.length == 0;
  }

  /**
   * The requests served since {@code earlier} (an earlier scrape of the same server). When a count fell the server
   * restarted in between, and its counters began again at zero: the whole of this scrape is the difference. Bounds
   * missing from one side count as zero there.
   */
  public ServerHistogram since(ServerHistogram earlier) {
    if (earlier == null || earlier.isEmpty()) {
      return this;
    }
    long[] d = new long[bounds.length];
    for (int i = 0; i < bounds.length; i++) {
      long before = earlier.cumulativeAt(bounds[i]);
      if (cumulative[i] < before) {
        return this;
      }
      d[i] = cumulative[i] - before;
    }
    return new ServerHistogram(bounds, d);
  }

  private long cumulativeAt(double bound) {
    int i = Arrays.binarySearch(bounds, bound);
    return i >= 0 ? cumulative[i] : 0;
  }

  /** The sum of two differences (two seconds, or two servers with the same bounds), bucket by bucket. */
  public ServerHistogram plus(ServerHistogram other) {
    if (other == null || other.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return other;
    }
    TreeMap<Double, Long> sum = new TreeMap<>();
    for (int i = 0; i < bounds.length; i++) {
      sum.put(bounds[i], cumulative[i]);
    }
    for (int i = 0; i < other.bounds.length; i++) {
      sum.merge(other.bounds[i], other.cumulative[i], Long::sum);
    }
    // a bound only one side has: the other side's cumulative count there is that of its next lower bound
    double[] b = new double[sum.size()];
    long[] c = new long[sum.size()];
    int i = 0;
    for (double bound : sum.keySet()) {
      b[i] = bound;
      c[i] = cumulativeAtOrBelow(bound) + other.cumulativeAtOrBelow(bound);
      i++;
    }
    return new ServerHistogram(b, c);
  }

  private long cumulativeAtOrBelow(double bound) {
    long c = 0;
    for (int i = 0; i < bounds.length && bounds[i] <= bound; i++) {
      c = cumulative[i];
    }
    return c;
  }

  /**
   * The smallest bucket bound, in milliseconds, under which at least {@code q} of the requests fall: an upper bound of
   * the q-quantile. NaN with no requests; +Inf when the quantile lies beyond the largest finite bound.
   */
  public double quantileUpperBoundMs(double q) {
    long n = count();
    if (n == 0) {
      return Double.NaN;
    }
    double need = Math.ceil(q * n);
    for (int i = 0; i < bounds.length; i++) {
      if (cumulative[i] >= need) {
        return bounds[i] * 1000.0;
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  /** The share of the requests at or under {@code ms} (a bucket bound, else the next lower one), NaN with none. */
  public double shareAtOrUnderMs(double ms) {
    long n = count();
    return n == 0 ? Double.NaN : cumulativeAtOrBelow(ms / 1000.0 + 1e-12) / (double) n;
  }
}
