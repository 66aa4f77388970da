package dev.updraft.testing.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.greenbytes.http.sfv.BooleanItem;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.NumberItem;
import org.greenbytes.http.sfv.ParseException;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;

/**
 * What an expo-updates client decides with a server's answer, written from the client's code (expo-updates
 * 57, Android {@code packages/expo-updates/android/src/main/java/expo/modules/updates/}, iOS
 * {@code packages/expo-updates/ios/EXUpdates/}), never from the server's, so that tests can say what a
 * real device does next:
 *
 * <ul>
 *   <li>{@link #filters}: {@code expo-manifest-filters} as {@code ResponseHeaderData.headerDictionaryToJSONObject}
 *       reads it (an SF dictionary; only string, number and boolean members; unparsable: none);
 *   <li>{@link #matchesFilters}: {@code SelectionPolicies.matchesFilters} (iOS
 *       {@code SelectionPolicies.doesUpdate}): no filters or no {@code metadata} passes; metadata keys are
 *       compared in lower case; a key the metadata lacks passes; otherwise the values must be equal;
 *   <li>{@link #shouldLoadNewUpdate}: {@code LoaderSelectionPolicyFilterAware.shouldLoadNewUpdate}: the new
 *       update must pass the filters, and then either nothing was launched, the launched update fails them,
 *       or the new one has a later {@code commitTime};
 *   <li>{@link #shouldLoadRollBackToEmbedded}: {@code shouldLoadRollBackToEmbeddedDirective}: the embedded
 *       update must pass the filters, and then nothing launched, the launched one fails them, or the
 *       directive's {@code commitTime} is later than the launched update's;
 *   <li>{@link #selectUpdateToLaunch}: {@code LauncherSelectionPolicyFilterAware.selectUpdateToLaunch}:
 *       among stored updates of the binary's runtime version that pass the stored filters, the newest
 *       {@code commitTime}.
 * </ul>
 *
 * <p>{@link Client} puts them together as one device: the embedded update, the updates it stored, the
 * ones that failed to launch, the filters it keeps, and what it launches next. Stateless (the static
 * methods) and thread-safe; a {@link Client} is not.
 */
public final class ClientSelectionPolicy {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ClientSelectionPolicy() {}

  /**
   * An update as a client stores it ({@code UpdateEntity}): id, {@code commitTime} (a manifest's
   * {@code createdAt}), {@code metadata} and runtime version.
   *
   * @param metadata nullable: the update has none (the embedded update's {@code app.manifest} carries none)
   */
  public record Update(String id, Instant commitTime, Map<String, Object> metadata, String runtimeVersion) {
    public Update {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(commitTime, "commitTime");
      metadata = metadata == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    /** The update a manifest body describes (its {@code id}, {@code createdAt}, {@code metadata}, runtime). */
    public static Update fromManifest(String manifestJson) {
      JsonNode m;
      try {
        m = JSON.readTree(manifestJson);
      } catch (IOException e) {
        throw new UncheckedIOException("not a manifest: " + manifestJson, e);
      }
      Map<String, Object> metadata = null;
      JsonNode md = m.get("metadata");
      if (md != null && md.isObject()) {
        metadata = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : md.properties()) {
          metadata.put(e.getKey(), value(e.getValue()));
        }
      }
      return new Update(m.path("id").asText().toLowerCase(Locale.ROOT), Instant.parse(m.path("createdAt").asText()),
          metadata, m.path("runtimeVersion").asText());
    }

    /** The embedded update of a binary: no metadata. */
    public static Update embedded(String id, Instant commitTime, String runtimeVersion) {
      return new Update(id, commitTime, null, runtimeVersion);
    }

    /** The same update with another {@code commitTime} (what a roll back to embedded does to the embedded one). */
    public Update withCommitTime(Instant t) {
      return new Update(id, t, metadata, runtimeVersion);
    }

    /** org.json's types: strings, booleans, Integer when it fits (Android then never equals a Long filter). */
    private static Object value(JsonNode n) {
      if (n.isTextual()) {
        return n.asText();
      }
      if (n.isBoolean()) {
        return n.asBoolean();
      }
      if (n.isInt()) {
        return n.asInt();
      }
      if (n.isIntegralNumber()) {
        return n.asLong();
      }
      if (n.isNumber()) {
        return n.asDouble();
      }
      return n.toString();
    }
  }

  /**
   * The filters of an {@code expo-manifest-filters} value: null when the header is absent or does not
   * parse (the client then keeps what it stored); string members as {@code String}, booleans as
   * {@code Boolean}, numbers as the parser's number; other members are left out.
   */
  public static Map<String, Object> filters(String headerValue) {
    if (headerValue == null) {
      return null;
    }
    Map<String, ListElement<? extends Object>> members;
    try {
      members = Parser.parseDictionary(headerValue).get();
    } catch (ParseException e) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, ListElement<? extends Object>> m : members.entrySet()) {
      ListElement<? extends Object> v = m.getValue();
      if (v instanceof StringItem || v instanceof BooleanItem || v instanceof NumberItem) {
        out.put(m.getKey(), v.get());
      }
    }
    return out;
  }

  /** {@code SelectionPolicies.matchesFilters}: whether {@code u} passes {@code filters} (nullable: none). */
  public static boolean matchesFilters(Update u, Map<String, Object> filters) {
    if (filters == null || u.metadata() == null) {
      return true; // empty matches all
    }
    Map<String, Object> lower = new HashMap<>();
    for (Map.Entry<String, Object> e : u.metadata().entrySet()) {
      lower.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue());
    }
    for (Map.Entry<String, Object> f : filters.entrySet()) {
      if (lower.containsKey(f.getKey()) && !Objects.equals(f.getValue(), lower.get(f.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** {@code LoaderSelectionPolicyFilterAware.shouldLoadNewUpdate}. */
  public static boolean shouldLoadNewUpdate(Update newUpdate, Update launched, Map<String, Object> filters) {
    if (newUpdate == null || !matchesFilters(newUpdate, filters)) {
      return false;
    }
    if (launched == null || !matchesFilters(launched, filters)) {
      return true;
    }
    return newUpdate.commitTime().isAfter(launched.commitTime());
  }

  /** {@code LoaderSelectionPolicyFilterAware.shouldLoadRollBackToEmbeddedDirective}. */
  public static boolean shouldLoadRollBackToEmbedded(
      Instant commitTime, Update embedded, Update launched, Map<String, Object> filters) {
    if (!matchesFilters(embedded, filters)) {
      return false;
    }
    if (launched == null || !matchesFilters(launched, filters)) {
      return true;
    }
    return commitTime.isAfter(launched.commitTime());
  }

  /** {@code LauncherSelectionPolicyFilterAware.selectUpdateToLaunch} (no updates override): null when none. */
  public static Update selectUpdateToLaunch(Collection<Update> updates, String runtimeVersion, Map<String, Object> filters) {
    Update best = null;
    for (Update u : updates) {
      if (runtimeVersion.equals(u.runtimeVersion()) && matchesFilters(u, filters)
          && (best == null || u.commitTime().isAfter(best.commitTime()))) {
        best = u;
      }
    }
    return best;
  }

  /** What one check for an update ends in, by the client's names ({@code RemoteCheckResult...}). */
  public enum Outcome {
    /** A manifest the client downloads; it launches at the next cold start ({@code UpdateAvailable}). */
    UPDATE_AVAILABLE,
    /** The client rolls back to its embedded update at the next cold start ({@code RollBackToEmbedded}). */
    ROLL_BACK_TO_EMBEDDED,
    NO_UPDATE_AVAILABLE_ON_SERVER,
    UPDATE_REJECTED_BY_SELECTION_POLICY,
    UPDATE_PREVIOUSLY_FAILED,
    ROLLBACK_REJECTED_BY_SELECTION_POLICY,
    /**
     * An error: a manifest that fails the filters sent with it ("Downloaded manifest is invalid; provides
     * filters that do not match its content", FileDownloader.checkCodeSigningAndCreateManifest); nothing
     * is stored.
     */
    MANIFEST_FAILS_ITS_OWN_FILTERS
  }

  /**
   * One device: its embedded update, the updates it stored (the embedded one included, as
   * {@code EmbeddedLoader} puts it in the database), those that failed to launch, the filters it keeps
   * ({@code ManifestMetadata}), and the update it runs. Not thread-safe.
   */
  public static final class Client {
    private final String runtimeVersion;
    private Update embedded;
    private final Map<String, Update> stored = new LinkedHashMap<>();
    private final Map<String, Update> failed = new LinkedHashMap<>();
    private Map<String, Object> storedFilters;
    private Update launched;

    /** A fresh install: it runs its embedded update. */
    public Client(Update embedded) {
      this.embedded = embedded;
      this.runtimeVersion = embedded.runtimeVersion();
      stored.put(embedded.id(), embedded);
      launched = embedded;
    }

    /** The update running now. */
    public Update launched() {
      return launched;
    }

    public Update embedded() {
      return embedded;
    }

    /** The filters the client keeps (from the last answer that carried the header), or null. */
    public Map<String, Object> storedFilters() {
      return storedFilters;
    }

    /** Ids of the updates that failed to launch, newest {@code commitTime} first, at most 5 ({@code loadRecentUpdateIdsWithFailedLaunch}). */
    public List<String> recentFailedUpdateIds() {
      List<Update> f = new ArrayList<>(failed.values());
      f.sort(Comparator.comparing(Update::commitTime).reversed());
      List<String> out = new ArrayList<>();
      for (int i = 0; i < Math.min(5, f.size()); i++) {
        out.add(f.get(i).id());
      }
      return out;
    }

    /** {@code expo-recent-failed-update-ids} as the client sends it (an SF list of strings), or null when none failed. */
    public String recentFailedUpdateIdsHeader() {
      List<String> ids = recentFailedUpdateIds();
      if (ids.isEmpty()) {
        return null;
      }
      StringBuilder sb = new StringBuilder();
      for (String id : ids) {
        sb.append(sb.length() == 0 ? "" : ", ").append('"').append(id).append('"');
      }
      return sb.toString();
    }

    /**
     * One check: the answer's {@code expo-manifest-filters} (null: absent) and its manifest or directive
     * part body (both null: an empty answer). The filters are stored first, even with a directive
     * ({@code Loader.finish}); a manifest failing them is an error and nothing else happens.
     */
    public Outcome check(String filtersHeader, String manifestJson, String directiveJson) {
      Map<String, Object> responseFilters = filters(filtersHeader);
      if (manifestJson != null) {
        Update u = Update.fromManifest(manifestJson);
        if (!matchesFilters(u, responseFilters)) {
          return Outcome.MANIFEST_FAILS_ITS_OWN_FILTERS;
        }
        keep(responseFilters);
        if (!shouldLoadNewUpdate(u, launched, responseFilters)) {
          return Outcome.UPDATE_REJECTED_BY_SELECTION_POLICY;
        }
        if (failed.containsKey(u.id())) {
          return Outcome.UPDATE_PREVIOUSLY_FAILED; // CheckForUpdateProcedure: stored with failedLaunchCount > 0
        }
        stored.put(u.id(), u);
        return Outcome.UPDATE_AVAILABLE;
      }
      keep(responseFilters);
      if (directiveJson == null) {
        return Outcome.NO_UPDATE_AVAILABLE_ON_SERVER;
      }
      JsonNode d;
      try {
        d = JSON.readTree(directiveJson);
      } catch (IOException e) {
        throw new UncheckedIOException("not a directive: " + directiveJson, e);
      }
      String type = d.path("type").asText();
      if (type.equals("noUpdateAvailable")) {
        return Outcome.NO_UPDATE_AVAILABLE_ON_SERVER;
      }
      if (!type.equals("rollBackToEmbedded")) {
        throw new IllegalArgumentException("clients throw on an unknown directive type: " + type);
      }
      Instant commitTime = Instant.parse(d.path("parameters").path("commitTime").asText());
      if (!shouldLoadRollBackToEmbedded(commitTime, embedded, launched, responseFilters)) {
        return Outcome.ROLLBACK_REJECTED_BY_SELECTION_POLICY;
      }
      // the embedded update is stamped with the directive's commitTime, so it wins the next launch
      embedded = embedded.withCommitTime(commitTime);
      stored.put(embedded.id(), embedded);
      return Outcome.ROLL_BACK_TO_EMBEDDED;
    }

    private void keep(Map<String, Object> responseFilters) {
      if (responseFilters != null) {
        storedFilters = responseFilters;
      }
    }

    /**
     * A cold start: the launcher picks among stored updates that can launch (never one that failed:
     * {@code UpdateDao} loads {@code successful_launch_count > 0 OR failed_launch_count < 1}) the one
     * {@link #selectUpdateToLaunch} chooses with the stored filters. Returns what runs.
     */
    public Update coldStart() {
      List<Update> launchable = new ArrayList<>();
      for (Update u : stored.values()) {
        if (!failed.containsKey(u.id())) {
          launchable.add(u);
        }
      }
      Update next = selectUpdateToLaunch(launchable, runtimeVersion, storedFilters);
      launched = next == null ? embedded : next;
      return launched;
    }

    /**
     * The update just launched crashed before its first render: it is marked failed and the client falls
     * back to the next launchable update (error recovery).
     */
    public Update crashOnLaunch() {
      failed.put(launched.id(), launched);
      return coldStart();
    }
  }
}
