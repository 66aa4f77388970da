package dev.updraft.controlplane.sourcemaps;

import java.util.Arrays;

/** Growing parallel arrays of decoded segments (while a map is parsed; not thread-safe). */
final class Segments {
  int[] genCol = new int[1024];
  int[] src = new int[1024];
  int[] origLine = new int[1024];
  int[] origCol = new int[1024];
  int[] name = new int[1024];
  int size;

  void add(int g, int s, int l, int c, int n) {
    if (size == genCol.length) {
      int cap = size * 2;
      genCol = Arrays.copyOf(genCol, cap);
      src = Arrays.copyOf(src, cap);
      origLine = Arrays.copyOf(origLine, cap);
      origCol = Arrays.copyOf(origCol, cap);
      name = Arrays.copyOf(name, cap);
    }
    genCol[size] = g;
    src[size] = s;
    origLine[size] = l;
    origCol[size] = c;
    name[size] = n;
    size++;
  }

  void trim() {
    genCol = Arrays.copyOf(genCol, size);
    src = Arrays.copyOf(src, size);
    origLine = Arrays.copyOf(origLine, size);
    origCol = Arrays.copyOf(origCol, size);
    name = Arrays.copyOf(name, size);
  }

  /** Sorts segments [from, to) by generated column, stably (insertion sort: lines are short and nearly sorted). */
  void sortRange(int from, int to) {
    for (int i = from + 1; i < to; i++) {
      int g = genCol[i];
      int s = src[i];
      int l = origLine[i];
      int c = origCol[i];
      int n = name[i];
      int j = i - 1;
      while (j >= from && genCol[j] > g) {
        genCol[j + 1] = genCol[j];
        src[j + 1] = src[j];
        origLine[j + 1] = origLine[j];
        origCol[j + 1] = origCol[j];
        name[j + 1] = name[j];
        j--;
      }
      genCol[j + 1] = g;
      src[j + 1] = s;
      origLine[j + 1] = l;
      origCol[j + 1] = c;
      name[j + 1] = n;
    }
  }

  /** Growing ints. */
  static final class Ints {
    private int[] a = new int[256];
    private int n;

    void add(int v) {
      if (n == a.length) {
        a = Arrays.copyOf(a, n * 2);
      }
      a[n++] = v;
    }

    int[] toArray() {
      return Arrays.copyOf(a, n);
    }
  }
}
