package dev.updraft.controlplane.spi;

import io.vertx.core.Future;

/**
 * Something mounted into the control plane's HTTP server by another package of this module (insights
 * routes, the automatic-revert guard), passed to
 * {@code ControlPlane.start(vertx, config, extensions)}.
 *
 * <p>{@link #mount} runs once on a Vert.x event loop after the log has been replayed and before the
 * server listens; routes added there are served with the publisher API. {@link #close} runs when the
 * control plane closes, before the server stops.
 */
public interface ControlPlaneExtension {

  /** Adds routes, starts timers, connects pools. The control plane starts once the future completes. */
  Future<Void> mount(ExtensionContext context);

  /** Stops what {@link #mount} started. */
  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
