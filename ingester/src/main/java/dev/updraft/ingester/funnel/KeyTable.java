package dev.updraft.ingester.funnel;

/**
 * A bounded set of 128-bit hashes that forgets the least recently used ones, about: two generations, each an
 * open-addressing table (linear probing) of at most half the bound. New hashes go into the newer generation; a hash
 * found in the older one is copied into the newer one; when the newer one holds half the bound it becomes the older
 * one and the older one is dropped whole. So a hash used at least once while half the bound of others came in stays,
 * the others go, and nothing is ever removed one by one (no tombstones).
 *
 * <p>Memory: a slot is two longs (16 bytes); a generation grows by doubling up to {@code ceil(half / 0.75)} slots, so
 * a full set takes about 21.3 bytes per hash of the bound (two generations of three-quarters-full slots).
 *
 * <p>Not thread-safe: {@link FunnelKeys} holds the lock.
 */
final class KeyTable {
  private static final int FIRST_SLOTS = 1024;

  private final int half;
  private final int maxSlots;
  private Generation newer;
  private Generation older;

  /** One open-addressing table; a slot of (0, 0) is empty (a hash of (0, 0) is stored as (0, 1)). */
  private static final class Generation {
    final long[] slots;
    final int capacity;
    int size;

    Generation(int capacity) {
      this.capacity = capacity;
      this.slots = new long[2 * capacity];
    }

    /** The slot holding the hash, or minus one minus the empty slot where it would go. */
    int find(long hi, long lo) {
      // the high 32 bits of a Fibonacci-mixed hi, scaled to the capacity (hi is random already; the mixing keeps the
      // table even for hashes that are not)
      int i = (int) ((((hi * 0x9E3779B97F4A7C15L) >>> 32) * capacity) >>> 32);
      while (true) {
        long h = slots[2 * i];
        long l = slots[2 * i + 1];
        if (h == hi && l == lo) {
          return i;
        }
        if (h == 0 && l == 0) {
          return -1 - i;
        }
        i = i + 1 == capacity ? 0 : i + 1;
      }
    }

    void put(int empty, long hi, long lo) {
      slots[2 * empty] = hi;
      slots[2 * empty + 1] = lo;
      size++;
    }
  }

  /** @param bound the most hashes held (at least 1) */
  KeyTable(int bound) {
    if (bound < 1) {
      throw new IllegalArgumentException("a key table holds at least 1 key: bound=" + bound);
    }
    this.half = Math.max(1, bound / 2);
    this.maxSlots = (int) Math.min(Integer.MAX_VALUE / 2, (long) Math.ceil(half / 0.75) + 1);
    clear();
  }

  /** Whether the hash is held; one found in the older generation is copied into the newer one (it was just used). */
  boolean contains(long hi, long lo) {
    if (lo == 0 && hi == 0) {
      lo = 1;
    }
    if (newer.find(hi, lo) >= 0) {
      return true;
    }
    if (older != null && older.find(hi, lo) >= 0) {
      insert(hi, lo);
      return true;
    }
    return false;
  }

  /** Holds the hash (in the newer generation). */
  void add(long hi, long lo) {
    if (lo == 0 && hi == 0) {
      lo = 1;
    }
    if (newer.find(hi, lo) < 0) {
      insert(hi, lo);
    }
  }

  private void insert(long hi, long lo) {
    if (newer.size + 1 > newer.capacity * 0.75 && newer.capacity < maxSlots) {
      grow();
    }
    newer.put(-1 - newer.find(hi, lo), hi, lo);
    if (newer.size >= half) {
      older = newer;
      newer = new Generation(Math.min(FIRST_SLOTS, maxSlots));
    }
  }

  private void grow() {
    Generation g = new Generation((int) Math.min(maxSlots, 2L * newer.capacity));
    long[] s = newer.slots;
    for (int i = 0; i < s.length; i += 2) {
      if (s[i] != 0 || s[i + 1] != 0) {
        g.put(-1 - g.find(s[i], s[i + 1]), s[i], s[i + 1]);
      }
    }
    newer = g;
  }

  /** Forgets every hash. */
  void clear() {
    older = null;
    newer = new Generation(Math.min(FIRST_SLOTS, maxSlots));
  }

  /** Hashes held, counting one copied from the older generation into the newer one twice (so at most the bound). */
  int size() {
    return newer.size + (older == null ? 0 : older.size);
  }

  /** Slots allocated (for tests: memory grows with what is held, up to the bound). */
  int slots() {
    return newer.capacity + (older == null ? 0 : older.capacity);
  }
}
