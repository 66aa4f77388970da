package dev.updraft.load.run;

import dev.updraft.load.check.ErrorKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The first few error messages of each kind, for the summary. Thread-safe. */
final class ErrorSamples {
  static final int PER_KIND = 5;

  private final Map<ErrorKind, List<String>> byKind = new ConcurrentHashMap<>();

  void note(ErrorKind k, String detail) {
    List<String> l = byKind.computeIfAbsent(k, x -> new ArrayList<>());
    synchronized (l) {
      if (l.size() < PER_KIND) {
        l.add(detail);
      }
    }
  }

  /** A copy, in the order the kinds first failed. */
  Map<ErrorKind, List<String>> copy() {
    Map<ErrorKind, List<String>> m = new LinkedHashMap<>();
    for (Map.Entry<ErrorKind, List<String>> e : byKind.entrySet()) {
      synchronized (e.getValue()) {
        m.put(e.getKey(), List.copyOf(e.getValue()));
      }
    }
    return m;
  }
}
