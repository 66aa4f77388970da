package dev.updraft.edge.log;

import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.SnapshotSet;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds records of {@code updraft.events} into an {@link ImageDelta} for the {@link EventLogReader}, with its
 * policy for records this build cannot use, each counted in
 * {@code updraft_edge_events_skipped_total{reason}} and skipped:
 *
 * <ul>
 *   <li>{@code unknown-type}: a well-formed event of a type or schema version this build does not know
 *       (a newer control plane); logged once per type with its partition and offset; the app's sequence
 *       advances past it;
 *   <li>{@code malformed}: bytes that are not an event; logged (the first ten, then every thousandth);
 *   <li>{@code duplicate}: a sequence the app already has;
 *   <li>{@code inconsistent}: an event contradicting the app's state (logged by the fold);
 *   <li>{@code error}: a fold that threw (a bug); logged with the stack trace.
 * </ul>
 *
 * A rollout naming a bucketing algorithm this build does not know is not skipped: the event is applied
 * and counted as applied, the fold logs a warning, and every device is treated as outside that rollout
 * below 100 % (events-schema/COMPATIBILITY.md "Rollout bucketing").
 *
 * A per-app sequence above the next expected one is a gap: logged, counted in
 * {@code updraft_edge_sequence_gaps_total}, and the event is still applied.
 *
 * <p>Records an app's snapshot covers are left out (the image started from it). Reader thread only.
 */
final class RecordFolder {
  /** Logs under the reader's name, as before this class was split from it (log configurations name it). */
  private static final Logger LOG = LoggerFactory.getLogger(EventLogReader.class);

  private final String topic;
  private final LiveImage live;
  private SnapshotSet.Result snapshots = new SnapshotSet().result();
  private final Counter applied;
  private final Counter unknown;
  private final Counter malformed;
  private final Counter duplicate;
  private final Counter inconsistent;
  private final Counter failed;
  private final Counter gaps;
  private final Set<String> unknownTypesLogged = new HashSet<>();
  private long malformedSeen;

  RecordFolder(String topic, LiveImage live, MeterRegistry registry) {
    this.topic = topic;
    this.live = live;
    applied = Counter.builder("updraft.edge.events.applied").description("Events folded into the image").register(registry);
    unknown = skipped(registry, "unknown-type");
    malformed = skipped(registry, "malformed");
    duplicate = skipped(registry, "duplicate");
    inconsistent = skipped(registry, "inconsistent");
    failed = skipped(registry, "error");
    gaps = Counter.builder("updraft.edge.sequence.gaps").description("Per-app sequence gaps seen in the log").register(registry);
  }

  private static Counter skipped(MeterRegistry registry, String reason) {
    return Counter.builder("updraft.edge.events.skipped")
        .description("Records left out of the image, by reason")
        .tag("reason", reason)
        .register(registry);
  }

  /** The snapshots the image started from: the records they cover are not folded again. */
  void snapshots(SnapshotSet.Result loaded) {
    snapshots = loaded;
  }

  /** Folds one record of the events topic into {@code delta}, or skips and counts it. */
  void fold(ImageDelta delta, ConsumerRecord<byte[], byte[]> r) {
    Decoded d = EventCodec.decode(r.value());
    if (d instanceof Decoded.Unknown) {
      Decoded.Unknown u = (Decoded.Unknown) d;
      unknown.increment();
      if (unknownTypesLogged.add(u.type() + "@" + u.schemaVersion())) {
        LOG.warn("skipping events of unknown type={} schemaVersion={} (first at partition={} offset={} appId={}): "
            + "this edge is older than the control plane; later ones are counted, not logged",
            u.type(), u.schemaVersion(), r.partition(), r.offset(), u.appId());
      }
      if (!snapshots.covers(u.appId(), r.partition(), r.offset())) {
        delta.skip(u.appId(), u.sequence());
        replayed();
      }
      return;
    }
    if (d instanceof Decoded.Malformed) {
      malformed.increment();
      malformedSeen++;
      if (malformedSeen <= 10 || malformedSeen % 1000 == 0) {
        LOG.warn("skipping malformed record topic={} partition={} offset={}: {} (malformed so far={})",
            topic, r.partition(), r.offset(), ((Decoded.Malformed) d).reason(), malformedSeen);
      }
      return;
    }
    Decoded.Known k = (Decoded.Known) d;
    String appId = k.envelope().appId();
    if (snapshots.covers(appId, r.partition(), r.offset())) {
      return; // in the app's snapshot already
    }
    replayed();
    long expected = delta.nextSequence(appId);
    long sequence = k.envelope().sequence();
    if (sequence > expected) {
      gaps.increment();
      LOG.warn("sequence gap appId={} expected={} got={} partition={} offset={}: events {}..{} are missing from the log",
          appId, expected, sequence, r.partition(), r.offset(), expected, sequence - 1);
    }
    try {
      switch (delta.replay(k.envelope())) {
        case APPLIED:
          applied.increment();
          break;
        case DUPLICATE:
          duplicate.increment();
          break;
        default:
          inconsistent.increment();
      }
    } catch (RuntimeException e) {
      failed.increment();
      LOG.error("event fold failed, skipped: appId={} sequence={} type={} partition={} offset={}",
          appId, sequence, k.envelope().type().wireName(), r.partition(), r.offset(), e);
    }
  }

  /** Counts an event read before the image was ready (what {@code /readyz} reports as {@code eventsReplayed}). */
  private void replayed() {
    if (!live.ready()) {
      live.replayed();
    }
  }
}
