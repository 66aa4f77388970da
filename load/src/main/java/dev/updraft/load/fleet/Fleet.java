package dev.updraft.load.fleet;

import dev.updraft.common.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A fleet of N simulated installs, deterministic from a seed: each device has a stable EAS client id (a
 * version-4 UUID), a platform, a channel and a runtime version drawn from the configured mixes, and the
 * update it runs (an index into {@link #ids}). Thread-safe: the device states are atomic, the rest is
 * immutable after construction.
 *
 * <p>Memory is about 21 bytes per device, so a fleet of millions is cheap.
 */
public final class Fleet {
  /** One (platform, runtime version, channel) combination with the embedded update its binaries carry. */
  public record Key(int index, String platform, String runtimeVersion, String channel, String embeddedUpdateId, int embeddedIdx) {
    public String label() {
      return platform + "/" + runtimeVersion + "/" + channel;
    }
  }

  /** A weighted choice such as {@code ios:60,android:40}. */
  public record Mix(List<String> names, double[] cumulative) {
    public static Mix parse(String flag, String spec) {
      List<String> names = new ArrayList<>();
      List<Double> weights = new ArrayList<>();
      double total = 0;
      for (String item : spec.split(",")) {
        String s = item.trim();
        if (s.isEmpty()) {
          continue;
        }
        int c = s.lastIndexOf(':');
        String name = c > 0 ? s.substring(0, c) : s;
        double w;
        try {
          w = c > 0 ? Double.parseDouble(s.substring(c + 1)) : 1;
        } catch (NumberFormatException e) {
          throw new ConfigException("--" + flag + " weights must be numbers: got '" + s + "'");
        }
        if (!(w > 0) || names.contains(name)) {
          throw new ConfigException("--" + flag + " needs distinct names with weights > 0: got '" + s + "'");
        }
        names.add(name);
        weights.add(w);
        total += w;
      }
      if (names.isEmpty()) {
        throw new ConfigException("--" + flag + " is empty");
      }
      double[] cum = new double[names.size()];
      double acc = 0;
      for (int i = 0; i < cum.length; i++) {
        acc += weights.get(i) / total;
        cum[i] = acc;
      }
      cum[cum.length - 1] = 1.0;
      return new Mix(List.copyOf(names), cum);
    }

    public int pick(double u) {
      for (int i = 0; i < cumulative.length; i++) {
        if (u < cumulative[i]) {
          return i;
        }
      }
      return cumulative.length - 1;
    }

    public double share(int i) {
      return cumulative[i] - (i == 0 ? 0 : cumulative[i - 1]);
    }
  }

  final int size;
  final long seed;
  private final long[] msb;
  private final long[] lsb;
  private final short[] keyOf;
  private final AtomicIntegerArray current;
  final List<Key> keys;
  private final Catalog catalog;
  /** A seeded permutation of the devices: outdated devices are looked for in this order. */
  final int[] order;

  /** The number of devices. */
  public int size() {
    return size;
  }

  /** The (platform, runtime, channel) keys, in index order. */
  public List<Key> keys() {
    return keys;
  }

  /** A seeded permutation of the devices (not a copy: read it, do not change it). */
  public int[] order() {
    return order;
  }

  public Fleet(int size, long seed, Mix platforms, Mix runtimes, Mix channels, Catalog catalog) {
    if (size < 1) {
      throw new ConfigException("--devices must be >= 1: got " + size);
    }
    for (String p : platforms.names()) {
      if (!p.equals("ios") && !p.equals("android")) {
        throw new ConfigException("--platforms takes ios and android: got '" + p + "'");
      }
    }
    this.size = size;
    this.seed = seed;
    this.catalog = catalog;
    List<Key> ks = new ArrayList<>();
    for (String p : platforms.names()) {
      for (String r : runtimes.names()) {
        for (String c : channels.names()) {
          String embedded = nameUuid(seed, "embedded:" + p + ":" + r).toString();
          ks.add(new Key(ks.size(), p, r, c, embedded, catalog.intern(embedded)));
        }
      }
    }
    if (ks.size() > Short.MAX_VALUE) {
      throw new ConfigException("too many (platform, runtime, channel) combinations: " + ks.size());
    }
    this.keys = List.copyOf(ks);
    msb = new long[size];
    lsb = new long[size];
    keyOf = new short[size];
    current = new AtomicIntegerArray(size);
    SplittableRandom rnd = new SplittableRandom(seed);
    int nr = runtimes.names().size();
    int nc = channels.names().size();
    for (int i = 0; i < size; i++) {
      msb[i] = (rnd.nextLong() & ~0xF000L) | 0x4000L;
      lsb[i] = (rnd.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
      int p = platforms.pick(rnd.nextDouble());
      int r = runtimes.pick(rnd.nextDouble());
      int c = channels.pick(rnd.nextDouble());
      int k = (p * nr + r) * nc + c;
      keyOf[i] = (short) k;
      current.set(i, keys.get(k).embeddedIdx());
    }
    order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    SplittableRandom shuffle = new SplittableRandom(seed ^ 0x5DEECE66DL);
    for (int i = size - 1; i > 0; i--) {
      int j = shuffle.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }

  /** A deterministic UUID (version 4 bits) from a seed and a name. */
  public static UUID nameUuid(long seed, String name) {
    SplittableRandom r = new SplittableRandom(seed * 31 + name.hashCode() * 1_000_003L + name.length());
    return new UUID((r.nextLong() & ~0xF000L) | 0x4000L, (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
  }

  public Key key(int device) {
    return keys.get(keyOf[device]);
  }

  /** The lower-case client id of a device (what the server stores after normalising). */
  public String clientId(int device) {
    return new UUID(msb[device], lsb[device]).toString();
  }

  /** The {@code eas-client-id} header as the device's platform sends it: iOS upper case, Android lower. */
  public String clientIdHeader(int device) {
    String id = clientId(device);
    return "ios".equals(key(device).platform()) ? id.toUpperCase(Locale.ROOT) : id;
  }

  public int currentIdx(int device) {
    return current.get(device);
  }

  public String currentUpdateId(int device) {
    return catalog.id(current.get(device));
  }

  public void run(int device, int updateIdx) {
    current.set(device, updateIdx);
  }

  /** Sets the first {@code share} of each key's devices (in seeded order) to run {@code idxByKey}. */
  public void initialise(double share, int[] idxByKey) {
    SplittableRandom r = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
    for (int i = 0; i < size; i++) {
      int k = keyOf[i];
      double u = r.nextDouble();
      current.set(i, u < share && idxByKey[k] >= 0 ? idxByKey[k] : keys.get(k).embeddedIdx());
    }
  }

  /** Interned update ids: devices store an int, not a string. Thread-safe. */
  public static final class Catalog {
    private final ConcurrentHashMap<String, Integer> index = new ConcurrentHashMap<>();
    private volatile String[] ids = new String[0];

    synchronized int intern(String id) {
      String k = id.toLowerCase(Locale.ROOT);
      Integer i = index.get(k);
      if (i != null) {
        return i;
      }
      String[] next = java.util.Arrays.copyOf(ids, ids.length + 1);
      next[ids.length] = k;
      ids = next;
      index.put(k, ids.length - 1);
      return ids.length - 1;
    }

    /** The index of an id already interned, or -1 (no lock: the hot path). */
    public int find(String lowerId) {
      Integer i = index.get(lowerId);
      return i == null ? -1 : i;
    }

    int internFast(String lowerId) {
      int i = find(lowerId);
      return i >= 0 ? i : intern(lowerId);
    }

    public String id(int i) {
      return ids[i];
    }
  }
}
