package dev.updraft.load.run;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The generator's own log of what its devices did ({@code --device-log FILE}): one line per device, update and stage,
 * with the first time the generator saw it, written when the run ends. Stages: {@value #SERVED} (a manifest answer
 * carried the update), {@value #FULL} (its launch asset came back whole, 200), {@value #PATCH} (as a bundle patch,
 * 226), {@value #LAUNCHED} (a check-in the server answered ran it as the device's current update). Every request
 * the generator sends to a target with a client id is logged (discovery, push watch and warm-up included); requests
 * that failed before an answer are not. The generator never reports a failed update. Only written when asked; each
 * entry is one map insert, the set bounded by devices x updates x stages. Thread-safe.
 *
 * <p>File format: a header line, then tab-separated {@code client_id platform update_id stage first_epoch_ms}, client ids
 * in lower case (as the server keys devices), sorted.
 */
final class DeviceLog {
  static final String SERVED = "served";
  static final String FULL = "full";
  static final String PATCH = "patch";
  static final String LAUNCHED = "launched";
  static final String HEADER = "client_id\tplatform\tupdate_id\tstage\tfirst_epoch_ms";

  private record Entry(String clientId, String updateId, String stage) {}

  private record Seen(String platform, long atMillis) {}

  private final Path file;
  private final Map<Entry, Seen> entries = new ConcurrentHashMap<>();

  DeviceLog(Path file) {
    this.file = file;
  }

  /** Notes that device {@code clientId} (any case) on {@code platform} reached {@code stage} for {@code updateId}. */
  void note(String clientId, String platform, String updateId, String stage) {
    if (clientId == null || updateId == null || updateId.isEmpty()) {
      return;
    }
    entries.putIfAbsent(new Entry(clientId.toLowerCase(Locale.ROOT), updateId, stage),
        new Seen(platform == null ? "" : platform, System.currentTimeMillis()));
  }

  /** A check-in the server answered: the device ran {@code current}, and was served {@code served} (null: no update). */
  void checkIn(String clientId, String platform, String current, String served) {
    note(clientId, platform, current, LAUNCHED);
    if (served != null) {
      note(clientId, platform, served, SERVED);
    }
  }

  int size() {
    return entries.size();
  }

  /** Writes the log (replacing the file). */
  void write() throws IOException {
    List<String> lines = new ArrayList<>(entries.size());
    for (Map.Entry<Entry, Seen> e : entries.entrySet()) {
      Entry k = e.getKey();
      lines.add(k.clientId() + "\t" + e.getValue().platform() + "\t" + k.updateId() + "\t" + k.stage() + "\t" + e.getValue().atMillis());
    }
    lines.sort(null);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(HEADER);
      w.write('\n');
      for (String l : lines) {
        w.write(l);
        w.write('\n');
      }
    }
  }
}
