package dev.updraft.edge.image;

/**
 * The image device requests read: one volatile reference, swapped whole by the single log reader, and
 * the readiness flag. A request reads {@link #image()} once and works on that immutable image, so it
 * never sees half an update. Thread-safe.
 */
public final class LiveImage {
  private volatile ResolveImage image = ResolveImage.EMPTY;
  private volatile boolean ready;

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
  }

  /** Marks the image caught up; never reset. */
  public void markReady() {
    ready = true;
  }
}
