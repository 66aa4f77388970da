package dev.updraft.controlplane.patches;

import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.Deliveries;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the work that follows a publish off the request path, on one thread of its own, one group at a
 * time: for every servable update group whose work is not recorded yet ({@code patches.computed} is the
 * record; without edges nothing is recorded, only local storage's encoded copies are made, once per group
 * and process), a {@link GroupJob}; and, for storage with expiring URLs, fresh URLs for the launch assets and
 * patches edges still fetch ({@code launch-asset.stored} / {@code patches.computed} again) before half
 * their lifetime is gone. It looks at the state after every publish and every few seconds, so work left
 * by a crash or a fenced writer is picked up by whichever instance writes next. A job starts once publishes have
 * paused for a second, or once jobs have waited a minute ({@link PublishQuiet}). A job that fails is
 * logged and tried again later (after 1 minute, doubling up to 1 hour; after 1 hour at once when a file it needs is not
 * in the storage). Thread-safe.
 */
public final class PatchWorker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PatchWorker.class);
  private static final long SCAN_MS = 2_000;
  static final Duration LONGEST_WAIT = Duration.ofHours(1);

  private final CommandProcessor processor;
  private final Supplier<ControlState> state;
  private final Commands commands;
  private final AssetStorage storage;
  private final GroupJob job;
  private final FleetBases fleet;
  private final int fleetBases;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean queued = new AtomicBoolean();
  private final PublishQuiet quiet = new PublishQuiet(System::nanoTime);
  private final Map<String, Instant> retryAt = new HashMap<>();
  private final Map<String, Duration> backoff = new HashMap<>();
  /** Without edges nothing is recorded (no event): the groups whose copies this instance stored. */
  private final Set<String> doneHere = new java.util.HashSet<>();
  private final SettledApps settled = new SettledApps();
  /** How often the stopped bases are asked again. */
  static final long OUTCOMES_MS = 30_000;
  private final Map<String, Long> outcomesAt = new HashMap<>();
  private final Map<String, Set<String>> stoppedBases = new HashMap<>();
  private final boolean record;
  private final Counter kept;
  private final Counter dropped;
  private final Counter skipped;
  private final Counter failed;
  private final Counter encodedBytes;
  private final Timer jobs;

  PatchWorker(
      CommandProcessor processor, Commands commands, AssetStorage storage, Path tmp, GroupJob.Settings settings, FleetBases fleet,
      int fleetBases, MeterRegistry metrics) {
    this.processor = processor;
    this.state = processor::state;
    this.commands = commands;
    this.storage = storage;
    this.job = new GroupJob(storage, tmp, settings);
    this.record = settings.edges();
    this.fleet = fleet;
    this.fleetBases = fleetBases;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "updraft-patches");
      t.setDaemon(true);
      t.setPriority(Thread.NORM_PRIORITY - 1);
      return t;
    });
    this.kept = Counter.builder("updraft_control_patches_total").tag("outcome", "kept").description("bundle patches computed").register(metrics);
    this.dropped = Counter.builder("updraft_control_patches_total").tag("outcome", "dropped").description("bundle patches computed").register(metrics);
    this.skipped = Counter.builder("updraft_control_patches_total").tag("outcome", "skipped").description("bundle patches computed").register(metrics);
    this.encodedBytes = Counter.builder("updraft_control_encoded_bytes_total")
        .description("bytes of encoded (zstd, br, gzip) asset copies stored by post-publish jobs").register(metrics);
    this.failed = Counter.builder("updraft_control_patch_jobs_failed_total").description("post-publish jobs (encodings, patches) that failed and wait for a retry").register(metrics);
    this.jobs = Timer.builder("updraft_control_patch_job_seconds").description("time of one post-publish job (encodings and patches of one group)").register(metrics);
  }

  void start() {
    thread.scheduleWithFixedDelay(this::scanQuietly, SCAN_MS, SCAN_MS, TimeUnit.MILLISECONDS);
  }

  /** Asks for a scan soon (a publish is being decided); its jobs start once publishes pause ({@link PublishQuiet}). */
  void poke() {
    quiet.published();
    later(TimeUnit.MILLISECONDS.toNanos(200));
  }

  private void later(long nanos) {
    if (queued.compareAndSet(false, true)) {
      thread.schedule(() -> {
        queued.set(false);
        scanQuietly();
      }, nanos, TimeUnit.NANOSECONDS);
    }
  }

  /** False (and a scan asked for when it may) while jobs wait for publishes to pause. Worker thread. */
  private boolean mayStartJob() {
    long wait = quiet.waitNanos();
    if (wait > 0) {
      later(wait);
      return false;
    }
    return true;
  }

  private void scanQuietly() {
    try {
      scan();
    } catch (Throwable t) {
      LOG.warn("patches: scan failed: {}", t.toString(), t);
      if (t instanceof Error) {
        throw (Error) t;
      }
    }
  }

  /** One pass: every pending group job, then renewals. Worker thread. */
  void scan() throws Exception {
    if (processor.health() != CommandProcessor.Health.OK) {
      return; // only the writer records work; a fenced or starting instance leaves it to the writer
    }
    ControlState s = state.get();
    Instant now = Instant.now();
    for (AppState app : s.apps().values()) {
      Deliveries d = s.deliveries(app.appId());
      if (settled.skip(app.appId(), app, d, now)) {
        continue; // unchanged since a pass found nothing to do in it, and no retry due
      }
      Pending pending = pending(s, app, now);
      if (pending.due().isEmpty()) {
        settled.settle(app.appId(), app, d, pending.nextRetry());
        continue;
      }
      settled.unsettle(app.appId());
      for (GroupState g : pending.due()) {
        if (!mayStartJob()) {
          return; // the rest of the pass (renewals included) when publishes pause
        }
        runJob(app.appId(), g.groupId());
      }
    }
    settled.keepOnly(s.apps().keySet());
    if (record) {
      reconcileBuilds(state.get());
    }
    renew(state.get());
  }

  /**
   * Patches from the builds registered (or re-registered) after a servable group's job, and the embedded
   * update ids its recorded patches carry kept in step with the builds' versions. Worker thread.
   */
  private void reconcileBuilds(ControlState s) throws Exception {
    for (AppState app : s.apps().values()) {
      Deliveries d = s.deliveries(app.appId());
      if (d.builds().isEmpty() && d.patches().isEmpty()) {
        continue; // nothing to reconcile: no telemetry query for it (thousands of apps without patches, one each per 30 s)
      }
      Set<String> stopped = stopped(app.appId());
      if (d.builds().isEmpty() && stopped.isEmpty()) {
        continue;
      }
      Set<String> seen = new LinkedHashSet<>();
      for (AppState.Servable sv : app.servable()) {
        GroupState g = app.group(sv.groupId());
        if (g == null || !seen.add(g.groupId()) || !d.patchesComputed(g.groupId()) || retryAt.containsKey(g.groupId())) {
          continue;
        }
        if (!mayStartJob()) {
          return;
        }
        GroupJob.Tally tally = new GroupJob.Tally();
        try {
          List<BundlePatch> changed = job.reconcileBuilds(s, app, g, stopped, tally);
          skipped.increment(tally.patchesSkipped);
          if (!changed.isEmpty()) {
            commands.deliveries().record(app.appId(), List.of(new PatchesComputed(g.groupId(), changed)))
                .toCompletionStage().toCompletableFuture().get(2, TimeUnit.MINUTES);
            kept.increment(tally.patchesKept);
            dropped.increment(tally.patchesDropped);
            LOG.info("patches: group {} of app {}: {} patch records for registered builds ({} new, {} bytes), {} dropped",
                g.groupId(), app.appId(), changed.size(), tally.patchesKept, tally.patchBytes, tally.patchesDropped);
          }
        } catch (Exception | OutOfMemoryError e) {
          failed.increment();
          LOG.warn("patches: the registered builds' patches for group {} of app {} failed ({}); tried again at the next scan", g.groupId(),
              app.appId(), e.toString());
        }
      }
    }
  }

  /**
   * An app's servable update groups whose work is not recorded: those due now, oldest first, and the earliest retry of
   * the others (a failed job's; null when none waits).
   */
  private record Pending(List<GroupState> due, Instant nextRetry) {}

  private Pending pending(ControlState s, AppState app, Instant now) {
    Deliveries d = s.deliveries(app.appId());
    Set<String> seen = new LinkedHashSet<>();
    List<GroupState> due = new ArrayList<>();
    Instant nextRetry = null;
    for (AppState.Servable sv : app.servable()) {
      GroupState g = app.group(sv.groupId());
      if (g == null || g.group().rollsBackToEmbedded() || d.patchesComputed(g.groupId()) || doneHere.contains(g.groupId())
          || !seen.add(g.groupId())) {
        continue;
      }
      Instant retry = retryAt.get(g.groupId());
      if (retry == null || !retry.isAfter(now)) {
        due.add(g);
      } else if (nextRetry == null || retry.isBefore(nextRetry)) {
        nextRetry = retry;
      }
    }
    due.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
    return new Pending(due, nextRetry);
  }

  private void runJob(String appId, String groupId) throws Exception {
    ControlState s = state.get();
    AppState app = s.app(appId);
    GroupState g = app == null ? null : app.group(groupId);
    if (g == null || s.deliveries(appId).patchesComputed(groupId)) {
      return;
    }
    Timer.Sample t = Timer.start();
    GroupJob.Tally tally = new GroupJob.Tally();
    try {
      List<EventPayload> events = job.run(s, app, g, record ? fleetBases(appId, g) : Map.of(), record ? stopped(appId) : Set.of(), tally);
      if (record) {
        commands.deliveries().record(appId, events).toCompletionStage().toCompletableFuture().get(2, TimeUnit.MINUTES);
      } else {
        doneHere.add(groupId);
      }
      retryAt.remove(groupId);
      backoff.remove(groupId);
      kept.increment(tally.patchesKept);
      dropped.increment(tally.patchesDropped);
      skipped.increment(tally.patchesSkipped);
      encodedBytes.increment(tally.encodedBytes);
      LOG.info("patches: group {} of app {}: {} patches kept ({} bytes), {} dropped, {} skipped (memory), {} encoded bytes stored, diff {} ms",
          groupId, appId, tally.patchesKept, tally.patchBytes, tally.patchesDropped, tally.patchesSkipped, tally.encodedBytes,
          tally.diffNanos / 1_000_000);
    } catch (Exception | OutOfMemoryError e) {
      failed.increment();
      Duration next = retryAfter(backoff.get(groupId), e);
      backoff.put(groupId, next);
      retryAt.put(groupId, Instant.now().plus(next));
      LOG.warn("patches: the job for group {} of app {} failed ({}{}); trying again in {}", groupId, appId, e.toString(),
          missing(e) ? ": a file of the group is not in the storage" : "", next);
    } finally {
      t.stop(jobs);
    }
  }

  /**
   * How long after a failed job it runs again: 1 minute after the first failure, doubling up to {@link #LONGEST_WAIT};
   * the longest at once when the storage has no file the group needs ({@link java.nio.file.NoSuchFileException}, the
   * storage's "nothing stored there"): retrying sooner cannot make the file appear, and a log of thousands of such
   * groups (a pruned or lost storage) would otherwise fail a pass of every one of them each minute.
   *
   * @param last nullable: the wait after the previous failure
   */
  static Duration retryAfter(Duration last, Throwable failure) {
    if (missing(failure)) {
      return LONGEST_WAIT;
    }
    Duration next = last == null ? Duration.ofMinutes(1) : last.multipliedBy(2);
    return next.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : next;
  }

  private static boolean missing(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof java.nio.file.NoSuchFileException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The app's stopped bases ({@link PatchOutcomes}), asked of the telemetry database at most every
   * {@link #OUTCOMES_MS} (the last answer kept while it cannot answer; empty without one). Worker thread.
   */
  private Set<String> stopped(String appId) {
    if (fleet == null) {
      return Set.of();
    }
    Long at = outcomesAt.get(appId);
    long now = System.nanoTime();
    if (at == null || now - at > TimeUnit.MILLISECONDS.toNanos(OUTCOMES_MS)) {
      outcomesAt.put(appId, now);
      try {
        PatchOutcomes o = fleet.patchOutcomes(appId).toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
        if (o != null) {
          Set<String> fresh = o.stopped();
          Set<String> before = stoppedBases.put(appId, fresh);
          if (!fresh.equals(before == null ? Set.of() : before) && !fresh.isEmpty()) {
            LOG.warn("patches: app {}: no more patches from bases {}: at least {} of their patches failed, half of those served",
                appId, fresh, PatchOutcomes.MIN_FAILURES);
          }
        }
      } catch (Exception e) {
        LOG.debug("patches: no patch outcomes for app {}: {}", appId, e.toString());
      }
    }
    return stoppedBases.getOrDefault(appId, Set.of());
  }

  /** The fleet's most common current updates per platform of the group (empty when telemetry cannot tell). */
  private Map<String, List<String>> fleetBases(String appId, GroupState g) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (fleet == null || fleetBases <= 0) {
      return out;
    }
    for (PlatformUpdate p : g.group().platforms()) {
      try {
        List<String> ids = fleet.mostCommon(appId, p.platform(), fleetBases).toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
        if (ids != null) {
          out.put(p.platform(), ids);
        }
      } catch (Exception e) {
        LOG.debug("patches: no fleet bases for app {}: {}", appId, e.toString());
      }
    }
    return out;
  }

  /** Fresh URLs for launch assets and patches edges still fetch, when storage URLs expire. */
  private void renew(ControlState s) throws Exception {
    Duration ttl = storage.urlTtl();
    if (ttl == null) {
      return;
    }
    Instant due = Instant.now().minus(ttl.dividedBy(2));
    for (AppState app : s.apps().values()) {
      Deliveries d = s.deliveries(app.appId());
      List<EventPayload> fresh = new ArrayList<>();
      Set<String> shas = new LinkedHashSet<>();
      Set<String> groups = new LinkedHashSet<>();
      for (AppState.Servable sv : app.servable()) {
        GroupState g = app.group(sv.groupId());
        PlatformUpdate p = g == null ? null : g.platform(sv.platform());
        String sha = p == null ? null : Bodies.launchSha(p.body());
        Instant at = sha == null ? null : d.launchAt().get(sha);
        if (at != null && at.isBefore(due) && shas.add(sha)) {
          fresh.add(reurl(app.appId(), d.launchAssets().get(sha)));
        }
        Instant pat = g == null ? null : d.patchesAt().get(g.groupId());
        PatchesComputed pc = g == null ? null : d.patches().get(g.groupId());
        if (pat != null && pat.isBefore(due) && pc != null && !pc.patches().isEmpty() && groups.add(g.groupId())) {
          List<BundlePatch> ps = new ArrayList<>();
          for (BundlePatch b : pc.patches()) {
            ps.add(new BundlePatch(b.platform(), b.targetSha256(), b.baseSha256(), b.baseUpdateIds(), b.sha256(), b.size(), GroupJob.patchUrl(storage, app.appId(), b.sha256())));
          }
          fresh.add(new PatchesComputed(g.groupId(), ps));
        }
      }
      if (!fresh.isEmpty()) {
        commands.deliveries().record(app.appId(), fresh).toCompletionStage().toCompletableFuture().get(2, TimeUnit.MINUTES);
        LOG.info("patches: renewed the URLs of {} launch-asset and patch records of app {}", fresh.size(), app.appId());
      }
    }
  }

  private LaunchAssetStored reurl(String appId, LaunchAssetStored l) {
    List<AssetVariant> vs = new ArrayList<>();
    for (AssetVariant v : l.variants()) {
      String url = v.encoding().equals(AssetVariant.IDENTITY)
          ? storage.urls(appId).url(l.sha256(), null, ContentTypes.JAVASCRIPT)
          : storage.urls(appId).url(v.sha256(), null, ContentTypes.OCTET_STREAM);
      vs.add(new AssetVariant(v.encoding(), v.sha256(), v.size(), url));
    }
    return new LaunchAssetStored(l.sha256(), l.contentType(), l.size(), vs);
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
