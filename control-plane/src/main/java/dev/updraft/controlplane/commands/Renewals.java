package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.render.UrlSource;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.EventCodec;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.FailedUpdates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Renews manifests whose pre-signed asset URLs are past half their lifetime (storage without expiring URLs
 * renews nothing): every entry a device can be served, the earlier ones a device that reported newer ones
 * failed gets included ({@link AppState#servable(int)}). Thread-safe.
 */
public final class Renewals {
  static final int RENEWALS_PER_EVENT = 50;
  /**
   * About how many encoded bytes of renewals one event carries: bodies with pre-signed URLs are large (a
   * manifest of 100 assets is ~60 kB), so a count alone could make an event larger than the log takes,
   * and a renewal refused for its size would leave every app's URLs to expire. Half of Kafka's default
   * record limit; half the events topic's limit when that is smaller still.
   */
  static final int RENEWAL_BYTES_PER_EVENT = 512 * 1024;
  /** The gauge of {@link #lifeLeft}. */
  static final String LIFE_LEFT_GAUGE = "updraft_control_presigned_url_life_left_ratio";
  /**
   * About how many pre-signed URLs one renewal command renders: chosen to keep a command short, not measured
   * (no benchmark of renewal cost exists yet).
   */
  static final int URLS_PER_COMMAND = 20_000;
  /** A bound on the commands of one renewal run (a run that keeps finding work stops there until the next). */
  private static final int MAX_COMMANDS_PER_RUN = 1_000;

  private final Vertx vertx;
  private final CommandProcessor processor;
  private final AssetStorage storage;
  private final Groups groups;
  private final Counter renewed;
  private final int urlsPerCommand;
  private final AtomicBoolean running = new AtomicBoolean();

  /** @param urlsPerCommand smaller in tests; 0: {@link #URLS_PER_COMMAND} */
  Renewals(Vertx vertx, CommandProcessor processor, AssetStorage storage, Groups groups, MeterRegistry metrics, int urlsPerCommand) {
    this.vertx = vertx;
    this.urlsPerCommand = urlsPerCommand > 0 ? urlsPerCommand : URLS_PER_COMMAND;
    this.processor = processor;
    this.storage = storage;
    this.groups = groups;
    this.renewed =
        Counter.builder("updraft_control_manifests_renewed_total")
            .description("manifest bodies re-rendered with fresh pre-signed asset URLs")
            .register(metrics);
    // a fenced instance stops folding the log while the writer that replaced it renews: its figure would only decay
    Gauge.builder(LIFE_LEFT_GAUGE, this, r -> r.processor.health() == CommandProcessor.Health.FENCED ? Double.NaN
            : lifeLeft(r.processor.state(), r.storage.urlTtl(), Instant.now()))
        .description("the least lifetime left of the pre-signed asset URLs in servable manifests, as a fraction of their"
            + " lifetime: renewal brings it back to ~1 past 0.5, so below 0.5 renewals are failing and at 0 devices cannot"
            + " download those assets (1 without expiring URLs; NaN on an instance another writer fenced)")
        .register(metrics);
  }

  /**
   * Of every servable manifest's pre-signed URLs, the least lifetime left at {@code now} as a fraction of
   * {@code ttl} (negative once expired); 1 when URLs do not expire ({@code ttl} null) or nothing is servable.
   */
  static double lifeLeft(ControlState s, Duration ttl, Instant now) {
    if (ttl == null) {
      return 1;
    }
    Instant oldest = null;
    for (AppState app : s.apps().values()) {
      for (AppState.Servable sv : app.servable(FailedUpdates.DEPTH)) {
        PlatformUpdate p = withUrls(app, sv);
        Instant rendered = p == null ? null : app.group(sv.groupId()).renderedAt().get(p.updateId());
        if (rendered != null && (oldest == null || rendered.isBefore(oldest))) {
          oldest = rendered;
        }
      }
    }
    if (oldest == null) {
      return 1;
    }
    return (double) Duration.between(now, oldest.plus(ttl)).toMillis() / ttl.toMillis();
  }

  /**
   * Renders fresh manifests for servable entries whose pre-signed URLs are past half their lifetime, in
   * commands of about {@link #urlsPerCommand} URLs each: the command thread runs nothing else while one plans
   * (every URL is signed there: an HMAC chain for S3, an RSA signature for GCS), so a backlog (a control
   * plane down past half the URLs' lifetime, a fleet of large apps) is renewed in several commands with
   * publishes between them. A call while another is still at work returns 0 at once.
   *
   * @return how many entries were renewed
   */
  public Future<Integer> renewDue() {
    Duration ttl = storage.urlTtl();
    if (ttl == null || !running.compareAndSet(false, true)) {
      return Future.succeededFuture(0);
    }
    return renewSome(ttl, 0, 1).andThen(ar -> running.set(false));
  }

  private Future<Integer> renewSome(Duration ttl, int before, int command) {
    boolean[] more = {false};
    return processor.submit(
            vertx,
            "renew",
            (s, now) -> {
              List<NewEvent> events = new ArrayList<>();
              int[] spent = {0};
              int total = 0;
              for (AppState app : s.apps().values()) {
                List<Renewal> due = due(app, ttl, now, spent);
                for (List<Renewal> chunk : chunks(due, processor)) {
                  events.add(
                      new NewEvent(
                          app.appId(),
                          Commands.ACTOR_SYSTEM,
                          new ManifestsRenewed(
                              "pre-signed asset URLs renewed before expiry (valid for " + ttl + " from " + now + ")", List.copyOf(chunk))));
                }
                total += due.size();
                if (spent[0] >= urlsPerCommand) {
                  more[0] = true; // the rest in the next command
                  break;
                }
              }
              int n = total;
              return Plan.of(events, st -> n);
            })
        .onSuccess(renewed::increment)
        .compose(
            n -> more[0] && n > 0 && command < MAX_COMMANDS_PER_RUN
                ? renewSome(ttl, before + n, command + 1)
                : Future.succeededFuture(before + n));
  }

  /**
   * {@code renewals} in order, cut into runs of at most {@code maxCount} whose estimated encoded size stays
   * within {@code budgetBytes}; a renewal larger than the budget alone is a run of its own.
   */
  static List<List<Renewal>> chunks(List<Renewal> renewals, int budgetBytes, int maxCount) {
    List<List<Renewal>> out = new ArrayList<>();
    List<Renewal> run = new ArrayList<>();
    long bytes = 0;
    for (Renewal r : renewals) {
      long size = encodedSize(r);
      if (!run.isEmpty() && (run.size() == maxCount || bytes + size > budgetBytes)) {
        out.add(List.copyOf(run));
        run.clear();
        bytes = 0;
      }
      run.add(r);
      bytes += size;
    }
    if (!run.isEmpty()) {
      out.add(List.copyOf(run));
    }
    return out;
  }

  /** A renewal's bytes in an event: its JSON and the comma before the next. */
  static long encodedSize(Renewal r) {
    return EventCodec.renewalBytes(r) + 1L;
  }

  /** {@link #chunks(List, int, int)} within the event size the log takes, for renewals and re-signings alike. */
  static List<List<Renewal>> chunks(List<Renewal> renewals, CommandProcessor processor) {
    return chunks(renewals, Math.min(RENEWAL_BYTES_PER_EVENT, processor.maxEventBytes() / 2), RENEWALS_PER_EVENT);
  }

  /**
   * Fresh bodies for the app's servable manifests rendered more than half a lifetime ago, while {@code spent[0]}
   * (the URLs rendered by this command so far, each entry's assets and launch asset) is below
   * {@link #urlsPerCommand}; the command's first entry is always taken.
   */
  private List<Renewal> due(AppState app, Duration ttl, Instant now, int[] spent) {
    List<Renewal> due = new ArrayList<>();
    Groups.Sign sign = null;
    UrlSource urls = storage.urls(app.appId());
    for (AppState.Servable sv : app.servable(FailedUpdates.DEPTH)) {
      PlatformUpdate p = withUrls(app, sv);
      if (p == null) {
        continue;
      }
      Instant rendered = app.group(sv.groupId()).renderedAt().get(p.updateId());
      if (rendered != null && rendered.plus(ttl.dividedBy(2)).isAfter(now)) {
        continue;
      }
      if (spent[0] > 0 && spent[0] >= urlsPerCommand) {
        break;
      }
      spent[0] += p.assetKeys().size() + 1;
      if (sign == null) {
        sign = groups.signer(app);
      }
      String body = ManifestRenderer.rerender(p.body(), null, null, null, urls);
      due.add(sign.sign(body).renewal(p.updateId(), body));
    }
    return due;
  }

  /** The servable entry's manifest, or null for a roll back to embedded (a directive, no asset URLs). */
  private static PlatformUpdate withUrls(AppState app, AppState.Servable sv) {
    GroupState g = app.group(sv.groupId());
    return g.group().rollsBackToEmbedded() ? null : g.platform(sv.platform());
  }
}
