package dev.updraft.edge.otlp;

import java.util.ArrayList;
import java.util.List;

/**
 * What a request held: the exceptions found (at most {@code cap}) and how many more were left over. Built by one
 * decoder on one thread.
 */
final class Decoded {
  final int cap;
  final List<Found> found = new ArrayList<>();
  int leftOver;
  /** Log records or spans seen (with or without an exception). */
  int items;

  Decoded(int cap) {
    this.cap = cap;
  }

  void add(Found f) {
    if (found.size() < cap) {
      found.add(f);
    } else {
      leftOver++;
    }
  }
}
