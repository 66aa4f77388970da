package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.storage.AssetStorage;
import io.micrometer.core.instrument.MeterRegistry;
import dev.updraft.controlplane.history.HistoryReads;
import io.vertx.core.Vertx;

/**
 * Every command the control plane accepts, by concept: {@link #apps()} (apps, tokens, signing keys),
 * {@link #updates()} (publish, republish, roll back to embedded), {@link #rollouts()}, {@link #channels()}
 * and {@link #renewals()}. Each command is a method returning the future of its result; it checks its
 * input against the state on the command thread ({@link Prologue} first) and plans its events; see
 * {@link CommandProcessor} for how they are appended. A refused command fails its future with
 * {@link CommandException}. Thread-safe.
 *
 * <p>Actors: a token id, {@link #ACTOR_ADMIN} for the bootstrap token, {@link #ACTOR_GUARD} for automatic
 * reverts, {@link #ACTOR_SYSTEM} for renewals, {@link #ACTOR_RETENTION} for groups a retention policy deletes.
 */
public final class Commands {
  public static final String ACTOR_ADMIN = "admin";
  public static final String ACTOR_GUARD = "guard";
  public static final String ACTOR_SYSTEM = "system";
  public static final String ACTOR_RETENTION = "retention";

  private final CommandProcessor processor;
  private final AppCommands apps;
  private final KeyCommands keys;
  private final UpdateCommands updates;
  private final RolloutCommands rollouts;
  private final ChannelCommands channels;
  private final Renewals renewals;
  private final DeliveryCommands deliveries;
  private final DeletionCommands deletions;
  private final RetentionCommands retention;
  private final AssetPrune assets;

  /**
   * @param history the groups the control plane no longer holds (the history projection), which retention
   *     policies delete too; null: none (policies act on the held groups only)
   * @param renewalUrlsPerCommand the pre-signed URLs one renewal command renders at most (smaller in tests); 0:
   *     the production value
   */
  public Commands(Vertx vertx, CommandProcessor processor, AssetStorage storage, KeyStore keys, MeterRegistry metrics,
      HistoryReads history, int renewalUrlsPerCommand) {
    this.processor = processor;
    Groups groups = new Groups(storage, keys);
    KeyExpiry expiry = new KeyExpiry(metrics, () -> processor.state().apps().values(), processor.clock());
    this.keys = new KeyCommands(vertx, processor, keys, groups, expiry);
    this.apps = new AppCommands(vertx, processor, this.keys);
    this.updates = new UpdateCommands(vertx, processor, groups);
    this.rollouts = new RolloutCommands(vertx, processor, groups);
    this.channels = new ChannelCommands(vertx, processor);
    this.renewals = new Renewals(vertx, processor, storage, groups, metrics, renewalUrlsPerCommand);
    this.deliveries = new DeliveryCommands(vertx, processor);
    this.deletions = new DeletionCommands(vertx, processor, keys);
    this.retention = new RetentionCommands(vertx, processor, history);
    this.assets = new AssetPrune(storage, processor::state, processor.clock());
  }

  /** Asset garbage collection (and what publishes in progress hold). */
  public AssetPrune assets() {
    return assets;
  }

  /** Deleting groups, branches, channels and apps; pinning groups. */
  public DeletionCommands deletions() {
    return deletions;
  }

  /** Retention policies and their application. */
  public RetentionCommands retention() {
    return retention;
  }

  /** The current state (never null). */
  public ControlState state() {
    return processor.state();
  }

  public AppCommands apps() {
    return apps;
  }

  /** An app's key ring. */
  public KeyCommands keys() {
    return keys;
  }

  public UpdateCommands updates() {
    return updates;
  }

  public RolloutCommands rollouts() {
    return rollouts;
  }

  public ChannelCommands channels() {
    return channels;
  }

  public Renewals renewals() {
    return renewals;
  }

  /** Builds' embedded bundles, launch-asset encodings and bundle patches. */
  public DeliveryCommands deliveries() {
    return deliveries;
  }
}
