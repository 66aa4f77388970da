package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import dev.updraft.ingester.funnel.FunnelRows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The check-ins of consecutive Kafka records, folded into the rows one PostgreSQL transaction writes,
 * plus the offset range per partition that the transaction records. Repeated check-ins of one device
 * collapse into one device row (its newest check-in; counts added up), so a batch writes one row per
 * device, per (update, hour, platform, channel), per (update, failing device) and per (update, device
 * served it), however many check-ins it holds.
 *
 * <p>Not thread-safe: filled on the ingester's consumer thread, then handed whole to the writer and never
 * changed again.
 */
final class Batch {
  static final long HOUR_MS = 3_600_000L;

  static final String SOURCE_EMBEDDED = "embedded";
  static final String SOURCE_OTA = "ota";
  static final String SOURCE_UNKNOWN = "unknown";

  /** A device of the registry. */
  record DeviceKey(String appId, String clientId) {}

  /** A row of {@code update_hourly}; {@code ""} stands for no update / no channel. */
  record HourKey(String appId, String updateId, long hourMillis, String platform, String channel)
      implements Comparable<HourKey> {
    @Override
    public int compareTo(HourKey o) {
      int c = appId.compareTo(o.appId);
      if (c == 0) {
        c = updateId.compareTo(o.updateId);
      }
      if (c == 0) {
        c = Long.compare(hourMillis, o.hourMillis);
      }
      if (c == 0) {
        c = platform.compareTo(o.platform);
      }
      return c != 0 ? c : channel.compareTo(o.channel);
    }
  }

  /** One device's relation to one update (failed it, or was served it). */
  record DeviceUpdateKey(String appId, String updateId, String clientId) {}

  /** The offsets of one partition this batch covers. */
  static final class Range {
    /** The next offset PostgreSQL must hold for this batch to apply; meaningless when no row is expected. */
    final long expected;
    /** Whether PostgreSQL must already hold a row for the partition (false: this batch inserts it). */
    final boolean expectedRow;
    /** The offset after the last record covered. */
    long next;

    Range(long expected, boolean expectedRow, long next) {
      this.expected = expected;
      this.expectedRow = expectedRow;
      this.next = next;
    }
  }

  /** A device's collapsed check-ins. */
  static final class Device {
    final DeviceKey key;
    CheckIn latest;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    long checkIns;
    String fatalError;
    long fatalErrorAt;

    Device(DeviceKey key) {
      this.key = key;
    }
  }

  /** Counters of one {@code update_hourly} row. */
  static final class Hour {
    final HourKey key;
    long launches;
    long embeddedLaunches;
    long failureReports;
    long served;

    Hour(HourKey key) {
      this.key = key;
    }
  }

  /** A device's failure reports of one update (a row of {@code update_failures}), or its crash reports ({@code update_crashes}). */
  static final class Failure {
    final DeviceUpdateKey key;
    String platform;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    long reports;
    /** The address bucket of the batch's first report (CheckIn.addressBucket); null when it had none. */
    String addressBucket;

    Failure(DeviceUpdateKey key) {
      this.key = key;
    }
  }

  /** The first time a device was served one update. */
  static final class Receipt {
    final DeviceUpdateKey key;
    String platform;
    long first = Long.MAX_VALUE;

    Receipt(DeviceUpdateKey key) {
      this.key = key;
    }
  }

  /**
   * A record PostgreSQL refused alone, set aside in {@code ingest_dead_letters} ({@link DeadLetters}).
   *
   * @param attempts the writes that held it, the batch's and the isolation's
   */
  record DeadLetter(ConsumerRecord<byte[], byte[]> record, String sqlState, String error, int attempts) {}

  /** A record that is not a check-in. */
  record Reject(TopicPartition partition, long offset, String error, String excerpt) {}

  private final Map<TopicPartition, Range> ranges = new LinkedHashMap<>();
  private final Map<DeviceKey, Device> devices = new HashMap<>();
  private final Map<HourKey, Hour> hours = new HashMap<>();
  private final Map<DeviceUpdateKey, Failure> failures = new HashMap<>();
  private final Map<DeviceUpdateKey, Receipt> receipts = new HashMap<>();
  private final Map<DeviceUpdateKey, Failure> crashes = new HashMap<>();
  private final List<Reject> rejects = new ArrayList<>();
  /** Every record covered, as consumed: what {@link DeadLetters} splits the batch by when PostgreSQL refuses it. */
  private final List<ConsumerRecord<byte[], byte[]>> consumed = new ArrayList<>();
  private final List<DeadLetter> deadLetters = new ArrayList<>();
  private final Refusals refusals = new Refusals();
  private final PatchOutcomes patches = new PatchOutcomes();
  private final KeyAsks keyAsks = new KeyAsks();
  private final FunnelRows funnel = new FunnelRows();
  private final boolean keepTimes;
  private long[] times = new long[0];
  private int records;
  private int checkIns;
  private long oldestAt = Long.MAX_VALUE;
  private long firstRecordNanos;
  private long producedNanos;

  /** @param keepTimes keep every check-in's time (for latency measurements), not only the oldest */
  Batch(boolean keepTimes) {
    this.keepTimes = keepTimes;
  }

  /**
   * Records that this batch covers {@code offset} of {@code partition}. The first call for a partition
   * fixes what PostgreSQL must hold for the batch to apply ({@code expected}, {@code expectedRow}).
   */
  void cover(TopicPartition partition, long expected, boolean expectedRow, long offset) {
    cover(partition, expected, expectedRow, offset, 0);
  }

  /**
   * {@link #cover(TopicPartition, long, boolean, long)} for a record that had already waited {@code waitedNanos}
   * (in the producer and in Kafka) when it was read: the batch lingers from the earliest such start.
   */
  void cover(TopicPartition partition, long expected, boolean expectedRow, long offset, long waitedNanos) {
    long now = System.nanoTime();
    if (records == 0) {
      firstRecordNanos = now;
      producedNanos = now - waitedNanos;
    } else if (now - waitedNanos - producedNanos < 0) {
      producedNanos = now - waitedNanos;
    }
    Range r = ranges.get(partition);
    if (r == null) {
      ranges.put(partition, new Range(expected, expectedRow, offset + 1));
    } else {
      r.next = offset + 1;
    }
    records++;
  }

  /** Adds a cleaned check-in (see {@link CheckIns#clean}); call {@link #cover} for its record too. */
  void add(CheckIn c) {
    checkIns++;
    long at = c.atEpochMillis();
    if (at < oldestAt) {
      oldestAt = at;
    }
    if (keepTimes) {
      if (checkIns > times.length) {
        times = Arrays.copyOf(times, Math.max(1024, times.length * 2));
      }
      times[checkIns - 1] = at;
    }
    keyAsks.add(c);
    funnel.add(c);
    String app = c.appId();
    String platform = c.platform();
    String client = c.clientId();
    if (CheckIn.OUTCOME_PATCH.equals(c.outcome())) {
      patches.add(c, at); // the launch-asset route's, not a manifest request: no launch, no device row
      return;
    }
    if (platform == null) {
      // a refusal whose platform was missing or not ios/android (CheckIns.clean drops it then): a refusal, and its
      // device a refused device, but no launch and no registry row, which are kept per platform of the fleet
      refusals.add(c, app, client, at);
      return;
    }
    String channel = c.channel() == null ? "" : c.channel();
    String source = source(c);
    long hour = Math.floorDiv(at, HOUR_MS) * HOUR_MS;

    Hour launch = hours.computeIfAbsent(
        new HourKey(app, c.currentUpdateId() == null ? "" : c.currentUpdateId(), hour, platform, channel), Hour::new);
    launch.launches++;
    if (SOURCE_EMBEDDED.equals(source)) {
      launch.embeddedLaunches++;
    }
    for (String failedId : c.failedUpdateIds()) {
      hours.computeIfAbsent(new HourKey(app, failedId, hour, platform, channel), Hour::new).failureReports++;
      if (client != null) {
        report(failures, new DeviceUpdateKey(app, failedId, client), platform, c, at);
      }
    }
    String crashed = crashedUpdateId(c);
    if (client != null && crashed != null) {
      report(crashes, new DeviceUpdateKey(app, crashed, client), platform, c, at);
    }
    if (CheckIn.OUTCOME_UPDATE.equals(c.outcome()) && c.servedUpdateId() != null) {
      hours.computeIfAbsent(new HourKey(app, c.servedUpdateId(), hour, platform, channel), Hour::new).served++;
      if (client != null) {
        Receipt r = receipts.computeIfAbsent(new DeviceUpdateKey(app, c.servedUpdateId(), client), Receipt::new);
        r.platform = platform;
        r.first = Math.min(r.first, at);
      }
    }
    if (CheckIn.OUTCOME_ERROR.equals(c.outcome())) {
      refusals.add(c, app, client, at);
    }
    if (client != null) {
      Device d = devices.computeIfAbsent(new DeviceKey(app, client), Device::new);
      d.latest = c; // records of one device come in offset order: the last one added is the newest
      d.first = Math.min(d.first, at);
      d.last = Math.max(d.last, at);
      d.checkIns++;
      if (c.fatalError() != null) {
        d.fatalError = c.fatalError();
        d.fatalErrorAt = at;
      }
    }
  }

  /** Adds one report of {@code key} (a failure or a crash) from check-in {@code c} at {@code at}. */
  private static void report(Map<DeviceUpdateKey, Failure> rows, DeviceUpdateKey key, String platform, CheckIn c, long at) {
    Failure f = rows.computeIfAbsent(key, Failure::new);
    f.platform = platform;
    if (at < f.first) {
      f.addressBucket = c.addressBucket();
    }
    f.first = Math.min(f.first, at);
    f.last = Math.max(f.last, at);
    f.reports++;
  }

  /**
   * The update a check-in's {@code Expo-Fatal-Error} is a crash of, or null: its current update, unless it carries no
   * fatal error or no current update, the current update is the embedded one (a crash of the build, or an emergency
   * launch, not of an update), or it lists recent failed updates (the crash was one of those failed launches, counted
   * in {@code update_failures}, and the device has fallen back to the update it now runs: not counted twice).
   */
  static String crashedUpdateId(CheckIn c) {
    String current = c.currentUpdateId();
    if (c.fatalError() == null || current == null || current.equals(c.embeddedUpdateId()) || !c.failedUpdateIds().isEmpty()) {
      return null;
    }
    return current;
  }

  /** The download funnel's rows ({@code update_funnel}). */
  FunnelRows funnel() {
    return funnel;
  }

  /** The keyids devices asked for ({@code key_asks}). */
  KeyAsks keyAsks() {
    return keyAsks;
  }

  /** Patches served and failed ({@code patch_outcomes}). */
  PatchOutcomes patches() {
    return patches;
  }

  /** Adds a record that is not a check-in; call {@link #cover} for it too. */
  void reject(TopicPartition partition, long offset, String error, String excerpt) {
    rejects.add(new Reject(partition, offset, Objects.requireNonNull(error), excerpt));
  }

  /** Keeps a covered record as consumed (see {@link #consumed()}). */
  void keep(ConsumerRecord<byte[], byte[]> r) {
    consumed.add(r);
  }

  /** The records covered, in the order they were consumed. */
  List<ConsumerRecord<byte[], byte[]>> consumed() {
    return consumed;
  }

  /** Sets a record aside instead of storing it; call {@link #cover} for it too. */
  void deadLetter(DeadLetter d) {
    deadLetters.add(d);
  }

  List<DeadLetter> deadLetters() {
    return deadLetters;
  }

  /** How the device runs: its current update is the embedded one, another one, or not reported. */
  static String source(CheckIn c) {
    if (c.currentUpdateId() == null) {
      return SOURCE_UNKNOWN;
    }
    return c.currentUpdateId().equals(c.embeddedUpdateId()) ? SOURCE_EMBEDDED : SOURCE_OTA;
  }

  /** Kafka records covered: check-ins and rejects. */
  int records() {
    return records;
  }

  int checkIns() {
    return checkIns;
  }

  boolean isEmpty() {
    return records == 0;
  }

  /** {@link System#nanoTime()} when the first record was covered. */
  long firstRecordNanos() {
    return firstRecordNanos;
  }

  /**
   * {@link System#nanoTime()} when the record that had waited longest was produced (its read time less what it
   * had waited); {@link #firstRecordNanos()} when no record said it had waited.
   */
  long producedNanos() {
    return producedNanos;
  }

  /** Edge time of the oldest check-in, or {@link Long#MAX_VALUE} when there is none. */
  long oldestAt() {
    return oldestAt;
  }

  /** The times of the check-ins when kept (see constructor), in a fresh array. */
  long[] times() {
    return Arrays.copyOf(times, keepTimes ? checkIns : 0);
  }

  Map<TopicPartition, Range> ranges() {
    return ranges;
  }

  Map<DeviceKey, Device> devices() {
    return devices;
  }

  Map<HourKey, Hour> hours() {
    return hours;
  }

  Map<DeviceUpdateKey, Failure> failures() {
    return failures;
  }

  /** Refused requests per key. */
  Map<Refusals.RefusalKey, Refusals.Refusal> refusals() {
    return refusals.byKey();
  }

  /** The refused devices of this batch, one per key and client id. */
  List<Refusals.RefusedDevice> refusedDevices() {
    return refusals.devices();
  }

  /** The devices' crash reports per update ({@link #crashedUpdateId}). */
  Map<DeviceUpdateKey, Failure> crashes() {
    return crashes;
  }

  Map<DeviceUpdateKey, Receipt> receipts() {
    return receipts;
  }

  List<Reject> rejects() {
    return rejects;
  }
}
