package dev.updraft.edge.image;

/**
 * The image device requests read: one volatile reference, swapped whole by the single log reader, and
 * the readiness flags. A request reads {@link #image()} once and works on that immutable image, so it
 * never sees half an update.
 *
 * <p>Ready ({@link #ready()}: device requests are answered) comes either from having caught up with the log
 * end seen at start ({@link #markReady()}, which also sets {@link #caughtUp()}), or from an image the edge
 * stored under its data directory, served while Kafka cannot be reached ({@link #markReadyFromStore()}).
 * The image's age ({@link #stalenessNanos()}) is the time since the reader last heard from the log, or since
 * the stored image's writer did; past {@code --max-stale} ({@link #tooStale()}) device requests are refused.
 * Thread-safe.
 */
public final class LiveImage {
  private volatile ResolveImage image = ResolveImage.EMPTY;
  private volatile boolean ready;
  private volatile boolean caughtUp;
  private volatile boolean fromStore;
  private volatile long eventsRestored;
  private volatile String storedFrom;
  private volatile long lastHeardNanos = System.nanoTime();
  private volatile java.util.Map<Integer, Long> offsets = java.util.Map.of();
  /** 0: no limit. */
  private final long maxStaleNanos;
  private volatile long version;
  private volatile int snapshotApps;
  private volatile long eventsReplayed;
  private volatile String refusal;
  private final StartPhases phases = new StartPhases();

  /** An image without an age limit. */
  public LiveImage() {
    this(null);
  }

  /** @param maxStale nullable: no limit; otherwise the oldest image served ({@code --max-stale}) */
  public LiveImage(java.time.Duration maxStale) {
    this.maxStaleNanos = maxStale == null ? 0 : Math.max(1, maxStale.toNanos());
  }

  /** Where the node's start went ({@code /readyz}'s {@code startMillis}). */
  public StartPhases phases() {
    return phases;
  }

  /** The current image. */
  public ResolveImage image() {
    return image;
  }

  /** Whether the image has caught up with the log end seen at start (device requests may be answered). */
  public boolean ready() {
    return ready;
  }

  /** Publishes a new image (single writer: the log reader). */
  public void publish(ResolveImage next) {
    image = next;
    version++; // single writer
  }

  /** How many images were published since start (each one reference swap). */
  public long version() {
    return version;
  }

  /** The image started from this many app snapshots (log reader). */
  public void loadedSnapshots(int apps) {
    snapshotApps = apps;
  }

  /** One more event read before the image was ready (log reader). */
  public void replayed() {
    eventsReplayed++;
  }

  /** How many apps the image started from snapshots of. */
  public int snapshotApps() {
    return snapshotApps;
  }

  /** How many events were read from the log to become ready. */
  public long eventsReplayed() {
    return eventsReplayed;
  }

  /** Why Kafka refuses the log reader (credentials, TLS, ACLs: {@code KafkaRefusal}), or null once it reads again. */
  public void refusal(String why) {
    refusal = why;
  }

  /** The reason {@code /readyz} gives while Kafka refuses the log reader; null otherwise. */
  public String refusal() {
    return refusal;
  }

  /** Marks the image caught up with the log end seen at start (and ready, if it was not). */
  public void markReady() {
    caughtUp = true;
    ready = true;
  }

  /**
   * Marks the image ready without having caught up: it was built from the image stored under the data
   * directory and Kafka could not be reached ({@link #servingStored()} until it catches up).
   */
  public void markReadyFromStore() {
    ready = true;
  }

  /** Drops the readiness of a stored image found not to belong to the log (the reader rebuilds the image). */
  public void unready() {
    ready = false;
    caughtUp = false;
    fromStore = false;
    eventsReplayed = 0;
  }

  /** Whether the image has caught up with the log end seen when Kafka first answered. */
  public boolean caughtUp() {
    return caughtUp;
  }

  /**
   * The image was built from a stored one, whose {@code events} records are not counted as replayed (log reader).
   *
   * @param from {@code data-dir <file>} or {@code storage <location>}
   */
  public void restoredFromStore(long events, String from) {
    fromStore = true;
    storedFrom = from;
    eventsRestored = events;
    eventsReplayed = 0;
  }

  /** Whether the image started from the one stored under the data directory. */
  public boolean fromStore() {
    return fromStore;
  }

  /** Where the stored image came from ({@code data-dir <file>} or {@code storage <location>}); null when none. */
  public String storedFrom() {
    return storedFrom;
  }

  /** Whether the stored image came from the asset storage ({@code --image-source}) rather than {@code --data-dir}. */
  public boolean fromStorage() {
    String f = storedFrom;
    return fromStore && f != null && f.startsWith("storage ");
  }

  /** Event records the stored image held (0 when it did not start from one). */
  public long eventsRestored() {
    return eventsRestored;
  }

  /** Whether the image is served from the stored one while the log has not been caught up with. */
  public boolean servingStored() {
    return ready && !caughtUp;
  }

  /** The reader heard from the log at {@code nanos} ({@link System#nanoTime}); log reader. */
  public void heard(long nanos) {
    lastHeardNanos = nanos;
  }

  /** When the reader (or the stored image's writer) last heard from the log, as {@link System#nanoTime}. */
  public long lastHeardNanos() {
    return lastHeardNanos;
  }

  /** Nanoseconds since the reader, or the stored image's writer, last heard from the log. */
  public long stalenessNanos() {
    return System.nanoTime() - lastHeardNanos;
  }

  /** Whether the image is older than {@code --max-stale}: then device requests are refused. */
  public boolean tooStale() {
    long max = maxStaleNanos;
    return max > 0 && System.nanoTime() - lastHeardNanos > max;
  }

  /** The configured {@code --max-stale} in nanoseconds (0: none). */
  public long maxStaleNanos() {
    return maxStaleNanos;
  }

  /** By events partition, the offset of the first record the image does not hold (log reader). */
  public void offsets(java.util.Map<Integer, Long> next) {
    offsets = java.util.Map.copyOf(next);
  }

  /** By events partition, the offset of the first record the image does not hold (empty before known). */
  public java.util.Map<Integer, Long> offsets() {
    return offsets;
  }
}
