package dev.updraft.controlplane;

import dev.updraft.controlplane.commands.AssetPrune;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.config.LifecycleFlags;
import io.vertx.core.Vertx;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's own schedule: every app's retention policies every {@code --retention-interval}, and,
 * when {@code --asset-prune-interval} is set, an asset prune of every app with {@code --asset-prune-grace}.
 * A run that is still going when the next is due is not doubled. Event loop; {@link #stop} cancels.
 */
final class Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);

  private final Vertx vertx;
  private final long retentionTimer;
  private final long pruneTimer;
  private boolean retaining;
  private boolean pruning;

  private Housekeeping(Vertx vertx, LifecycleFlags flags, Commands commands) {
    this.vertx = vertx;
    long every = flags.retentionInterval().toMillis();
    this.retentionTimer = vertx.setPeriodic(every, every, id -> retain(commands));
    if (flags.pruneInterval() == null) {
      this.pruneTimer = -1;
    } else {
      long p = flags.pruneInterval().toMillis();
      this.pruneTimer = vertx.setPeriodic(p, p, id -> prune(commands, flags));
    }
  }

  static Housekeeping start(Vertx vertx, LifecycleFlags flags, Commands commands) {
    return new Housekeeping(vertx, flags, commands);
  }

  private void retain(Commands commands) {
    if (retaining) {
      return;
    }
    retaining = true;
    commands.retention().applyAll()
        .onSuccess(all -> all.stream().filter(a -> a.groupsDeleted() > 0).forEach(a ->
            LOG.info("retention deleted {} groups of appId={} in {} events", a.groupsDeleted(), a.appId(), a.events())))
        .onFailure(t -> LOG.warn("scheduled retention failed: {}", t.getMessage()))
        .onComplete(ar -> retaining = false);
  }

  private void prune(Commands commands, LifecycleFlags flags) {
    if (pruning) {
      return;
    }
    pruning = true;
    List<String> apps = List.copyOf(commands.state().apps().keySet());
    AssetPrune.executor(vertx).executeBlocking(() -> {
      for (String app : apps) {
        AssetPrune.Result r = commands.assets().prune(app, false, flags.pruneGrace());
        if (!r.deleted().isEmpty()) {
          LOG.info("asset prune deleted {} objects ({} bytes) of appId={}", r.deleted().size(), r.bytes(), app);
        }
      }
      return null;
    }).onFailure(t -> LOG.warn("scheduled asset prune failed: {}", t.getMessage())).onComplete(ar -> pruning = false);
  }

  void stop() {
    vertx.cancelTimer(retentionTimer);
    if (pruneTimer >= 0) {
      vertx.cancelTimer(pruneTimer);
    }
  }
}
