package dev.updraft.edge.image;

/**
 * The image device requests read: one volatile reference, swapped whole by the single log reader, and
 * the readiness flag. A request reads {@link #image()} once and works on that immutable image, so it
 * never sees half an update. Thread-safe.
 */
public final class LiveImage {
  private volatile ResolveImage image = ResolveImage.EMPTY;
  private volatile boolean ready;
  private volatile long version;
  private volatile int snapshotApps;
  private volatile long eventsReplayed;
  private volatile String refusal;
  private final StartPhases phases = new StartPhases();

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

  /** Marks the image caught up; never reset. */
  public void markReady() {
    ready = true;
  }
}
