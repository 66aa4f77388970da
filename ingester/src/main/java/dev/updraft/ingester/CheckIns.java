package dev.updraft.ingester;

import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a decoded check-in into one PostgreSQL will always accept, or says why it is rejected. Every
 * check that protects a whole batch lives here: one value PostgreSQL refuses (a NUL character, a key too
 * long for a B-tree index) would otherwise fail the batch's transaction on every retry and stop the
 * ingester for good. Stateless and thread-safe.
 */
final class CheckIns {
  /** Longest identifier kept in a key column (app, client, update, platform). */
  static final int MAX_ID = 128;
  /** Longest channel, branch, runtime version or edge id. */
  static final int MAX_NAME = 256;
  /** {@code expo-fatal-error} is cut to this many characters by clients already. */
  static final int MAX_FATAL_ERROR = 1024;
  /** 9999-12-31T23:59:59.999Z: a later time (a broken clock) would make PostgreSQL refuse the batch. */
  static final long MAX_TIME = 253_402_300_799_999L;
  /** Clients send at most 5 failed ids; more than this is not a real client. */
  static final int MAX_FAILED_IDS = 16;

  private CheckIns() {}

  /**
   * A cleaned copy of {@code c}: NUL characters removed, blank strings made null, the client id in lower
   * case, names (channel, runtime version, branch, outcome, reason) cut to 256 characters, the fatal error cut
   * to 1024 characters, the failed ids de-duplicated, the platform dropped from a request refused for it
   * ({@link #refusedOffFleetPlatform}), and the time taken from the Kafka record when the check-in carries none.
   *
   * @return null when the check-in cannot be kept; {@link #problem(CheckIn)} says why
   */
  static CheckIn clean(CheckIn c, long recordTimestamp) {
    if (problem(c) != null) {
      return null;
    }
    String clientId = name(c.clientId(), MAX_ID);
    List<String> failed = new ArrayList<>(Math.min(c.failedUpdateIds().size(), MAX_FAILED_IDS));
    for (String f : c.failedUpdateIds()) {
      String id = name(f, MAX_ID);
      if (id != null && !failed.contains(id) && failed.size() < MAX_FAILED_IDS) {
        failed.add(id);
      }
    }
    List<String> skipped = new ArrayList<>(Math.min(c.skippedUpdateIds().size(), MAX_FAILED_IDS));
    for (String f : c.skippedUpdateIds()) {
      String id = name(f, MAX_ID);
      if (id != null && !skipped.contains(id) && skipped.size() < MAX_FAILED_IDS) {
        skipped.add(id);
      }
    }
    long at = c.atEpochMillis() > 0 ? c.atEpochMillis() : Math.max(0, recordTimestamp);
    // from the check-in as sent: a field with no rule here (v, the branch-rollout flag and bucket, any
    // field added later) is kept as it is
    return c.toBuilder()
        .checkInId(name(c.checkInId(), MAX_ID))
        .appId(name(c.appId(), MAX_ID))
        .platform(refusedOffFleetPlatform(c) ? null : name(c.platform(), MAX_ID))
        .runtimeVersion(name(c.runtimeVersion(), MAX_NAME))
        .channel(name(c.channel(), MAX_NAME))
        .clientId(clientId == null ? null : clientId.toLowerCase(Locale.ROOT))
        .currentUpdateId(name(c.currentUpdateId(), MAX_ID))
        .embeddedUpdateId(name(c.embeddedUpdateId(), MAX_ID))
        .failedUpdateIds(failed)
        .skippedUpdateIds(skipped)
        .outcome(name(c.outcome(), MAX_NAME))
        .reason(name(c.reason(), MAX_NAME))
        .branch(name(c.branch(), MAX_NAME))
        .servedUpdateId(name(c.servedUpdateId(), MAX_ID))
        .servedGroupId(name(c.servedGroupId(), MAX_ID))
        .fatalError(text(c.fatalError(), MAX_FATAL_ERROR))
        .atEpochMillis(at)
        .edgeId(text(c.edgeId(), MAX_NAME))
        .keyId(name(c.keyId(), MAX_ID))
        .build();
  }

  /**
   * Whether the check-in is a refusal whose platform is not one the edge serves (missing, or neither ios nor
   * android: refused as {@link CheckIn#REASON_INVALID_PLATFORM}, or for another reason checked first, such as a
   * bad protocol version): its device is not one of the fleet's, so the check-in counts among the refusals only
   * (its platform is dropped by {@link #clean}, and {@link Batch#add} keeps a check-in without a platform as a
   * refusal only). Answered requests always carry ios or android.
   */
  static boolean refusedOffFleetPlatform(CheckIn c) {
    return CheckIn.OUTCOME_ERROR.equals(c.outcome()) && !"ios".equals(c.platform()) && !"android".equals(c.platform());
  }

  /** Why a decoded check-in cannot be stored, or null when it can. */
  static String problem(CheckIn c) {
    if (blank(c.checkInId()) || blank(c.appId())) {
      return "checkInId and appId are required";
    }
    if (blank(c.platform()) && !CheckIn.OUTCOME_ERROR.equals(c.outcome())) {
      // the edge refuses a request without a platform (invalid-platform): only such a refusal may lack one
      return "platform is required (only a refused request may lack one)";
    }
    // the platform of a refusal off the fleet's platforms is whatever was sent, and clean() drops it: never a reason to refuse
    String[] ids = {c.appId(), refusedOffFleetPlatform(c) ? null : c.platform(), c.clientId(), c.checkInId(), c.currentUpdateId(), c.embeddedUpdateId(),
        c.servedUpdateId(), c.servedGroupId()};
    String[] idNames = {"appId", "platform", "clientId", "checkInId", "currentUpdateId", "embeddedUpdateId",
        "servedUpdateId", "servedGroupId"};
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] != null && ids[i].length() > MAX_ID) {
        return idNames[i] + " longer than " + MAX_ID + " characters: length=" + ids[i].length();
      }
    }
    // a channel, runtime version, branch, outcome or reason longer than MAX_NAME is cut to it by clean(), not
    // refused: the edge answered that device (no channel or runtime version that long exists), and dropping the
    // check-in would hide it; ids are refused instead, as cutting them could merge two devices or updates
    for (String f : c.failedUpdateIds()) {
      if (f != null && f.length() > MAX_ID) {
        return "failedUpdateIds entry longer than " + MAX_ID + " characters: length=" + f.length();
      }
    }
    if (c.atEpochMillis() > MAX_TIME) {
      return "atEpochMillis after year 9999: atEpochMillis=" + c.atEpochMillis();
    }
    Integer bucket = c.rolloutBucket();
    if (bucket != null && (bucket < 0 || bucket >= Bucketing.BUCKETS)) {
      return "rolloutBucket out of 0.." + (Bucketing.BUCKETS - 1) + ": rolloutBucket=" + bucket;
    }
    return null;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /** An identifier-like value: trimmed, without NULs, null when blank, never longer than {@code max}. */
  private static String name(String s, int max) {
    if (s == null) {
      return null;
    }
    String t = withoutNul(s).trim();
    if (t.isEmpty()) {
      return null;
    }
    return t.length() > max ? t.substring(0, max) : t;
  }

  /** Free text: without NULs, null when empty, cut to {@code max}. */
  private static String text(String s, int max) {
    if (s == null) {
      return null;
    }
    String t = withoutNul(s);
    if (t.isEmpty()) {
      return null;
    }
    return t.length() > max ? t.substring(0, max) : t;
  }

  /** PostgreSQL text cannot hold U+0000. */
  static String withoutNul(String s) {
    return s.indexOf('\u0000') < 0 ? s : s.replace("\u0000", "");
  }
}
