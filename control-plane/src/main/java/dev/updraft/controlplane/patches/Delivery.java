package dev.updraft.controlplane.patches;

import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.spi.ExtensionContext;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.LocalAssetStorage;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.nio.file.Path;

/**
 * How launch assets reach devices, wired into a control plane: the announcer that records where each new
 * launch asset lives (in the publish's transaction), the worker that stores encodings and computes patches
 * after each publish, and the routes. Use: {@link #decorate} the storage the commands render with, then
 * {@link #start} once the log is replayed. Thread-safe.
 */
public final class Delivery implements AutoCloseable {
  private final PatchWorker worker;
  private final FleetBases fleet;

  private Delivery(PatchWorker worker, FleetBases fleet) {
    this.worker = worker;
    this.fleet = fleet;
  }

  /** The storage manifests are rendered with: launch assets on the edges' route when {@code --edge-public-url} is set. */
  public static AssetStorage decorate(AssetStorage storage, ControlPlaneConfig config) {
    return EdgeLaunchUrls.decorate(storage, config.edgePublicUrl());
  }

  /**
   * Starts the worker and mounts the routes.
   *
   * @param storage the real storage (not {@link #decorate}d): its URLs are where edges fetch bytes
   */
  public static Delivery start(
      Vertx vertx, ControlPlaneConfig config, CommandProcessor processor, Commands commands, AssetStorage storage, Path tmp,
      MeterRegistry metrics, ExtensionContext routes) {
    FleetBases fleet = FleetBases.create(vertx, config.postgresUrl(), config.postgresTls());
    boolean edges = config.edgePublicUrl() != null;
    GroupJob.Settings settings =
        new GroupJob.Settings(edges, storage instanceof LocalAssetStorage, config.patchBases(), config.patchMaxBundleBytes(),
            config.fastEncoding());
    PatchWorker worker = new PatchWorker(processor, commands, storage, tmp, settings, fleet, config.patchFleetBases(), metrics);
    if (!edges && !settings.encodeOthers()) {
      new DeliveryRoutes(routes, commands, storage, fleet).mount();
      return new Delivery(worker, fleet); // nothing to do after a publish: launch assets live in storage, which does not negotiate
    }
    if (edges) {
      processor.follow(new LaunchAnnouncer(storage, worker::poke));
    } else {
      processor.follow((before, appId, payload) -> {
        worker.poke();
        return java.util.List.of();
      });
    }
    new DeliveryRoutes(routes, commands, storage, fleet).mount();
    worker.start();
    return new Delivery(worker, fleet);
  }

  /** Mounts only the routes (for describing the API: no worker, no telemetry). */
  public static void mountRoutes(ExtensionContext routes, Commands commands, AssetStorage storage) {
    new DeliveryRoutes(routes, commands, storage, null).mount();
  }

  @Override
  public void close() {
    worker.close();
    if (fleet != null) {
      fleet.close();
    }
  }
}
