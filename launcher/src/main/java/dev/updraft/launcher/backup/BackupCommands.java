package dev.updraft.launcher.backup;

import dev.updraft.common.Settings;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import java.util.Set;

/**
 * {@code updraft backup} and {@code updraft restore}: operator commands that talk to Kafka and the key store
 * directly (not to a control plane). Flags as the services take them ({@code --x} or {@code UPDRAFT_X}).
 * Exit status 0 on success, 1 with one line on stderr when refused or failed, 2 for a usage error (thrown as
 * {@link dev.updraft.common.ConfigException} for the launcher to print).
 */
public final class BackupCommands {
  /** The commands this class runs. */
  public static final Set<String> NAMES = Set.of("backup", "restore");

  /** The flags of {@code updraft backup} (without the leading dashes). */
  public static final Set<String> BACKUP_FLAGS = Backup.FLAGS;

  /** The flags of {@code updraft restore}. */
  public static final Set<String> RESTORE_FLAGS = Restore.FLAGS;

  /** The lines {@code updraft --help} shows for them. */
  public static final String SYNOPSIS =
      String.join(
          "\n",
          "  backup --out DIR [--kafka-bootstrap H:P] [--kafka-config FILE] [--topic-prefix P] [--key-store-dir D | --no-key-store]",
          "                 the committed events and snapshots, the key store as stored, and a manifest of hashes",
          "  restore --from DIR [--kafka-bootstrap H:P] [--kafka-config FILE] [--topic-prefix P] [--key-store-dir D | --no-key-store]",
          "                 into empty or absent topics; snapshot offsets moved to where the events landed");

  static final String BACKUP_HELP =
      String.join(
          "\n",
          "usage: updraft backup --out DIR [--kafka-bootstrap 127.0.0.1:9092] [--kafka-config FILE] [--topic-prefix P]",
          "                      [--data-dir ./.updraft] [--key-store-dir <data-dir>/keys | --no-key-store] [--timeout 2m]",
          "Writes to DIR (new or empty; made owner-only): the committed records of <prefix>updraft.events and",
          "<prefix>updraft.snapshots, each partition read with isolation.level=read_committed from its start up to",
          "its end offset when the backup began (aborted transactions and transaction markers are left out); the",
          "control plane's key store as stored (sealed keys stay sealed: nothing is decrypted); and manifest.json",
          "with record counts, per-partition offset ranges and the size and SHA-256 of every file, written last.",
          "Not in it: assets (back up the storage bucket or directory), telemetry and the audit projection",
          "(PostgreSQL: pg_dump; the audit is rebuilt from the log), the --master-key (keep it apart).",
          "--timeout: how long a partition may make no progress before the backup gives up.",
          "--kafka-config FILE: Kafka client properties (TLS, SASL; docs/operations.md, Secured Kafka).",
          "Every flag --x also reads UPDRAFT_X. Exit status: 0 ok; 1 refused or failed (one line); 2 a usage error.");

  static final String RESTORE_HELP =
      String.join(
          "\n",
          "usage: updraft restore --from DIR [--kafka-bootstrap 127.0.0.1:9092] [--kafka-config FILE] [--topic-prefix P]",
          "                       [--data-dir ./.updraft] [--key-store-dir <data-dir>/keys | --no-key-store]",
          "                       [--replication-factor N] [--min-insync-replicas N] [--telemetry-partitions N]",
          "                       [--telemetry-retention 3d] [--timeout 2m]",
          "Checks every file of the backup against its manifest's SHA-256 and refuses an altered one; refuses",
          "topics that hold records (naming the topic and its end offset) and a key store directory that is not",
          "empty; creates missing topics as the control plane does (same settings; the backup's events partition",
          "count; replication from the flags or the cluster's size); writes each events partition's records in",
          "their order to the same partition (keys, headers, timestamps kept); writes the snapshots with their",
          "offsets moved to where the events landed; then the key files. Start the control plane (same",
          "--master-key), edges and ingesters afterwards; the ingesters rebuild the audit from the log.",
          "--kafka-config FILE: Kafka client properties (TLS, SASL; docs/operations.md, Secured Kafka).",
          "Every flag --x also reads UPDRAFT_X. Exit status: 0 ok; 1 refused or failed (one line); 2 a usage error.");

  private BackupCommands() {}

  /**
   * Runs {@code backup} or {@code restore} with {@code args} (the flags after the command's name).
   *
   * @return the exit status: 0 ok, 1 refused or failed
   * @throws dev.updraft.common.ConfigException for a usage error
   */
  public static int run(String command, String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Settings s = Settings.parse(args, env);
    if (s.bool("help", false)) {
      out.println(command.equals("backup") ? BACKUP_HELP : RESTORE_HELP);
      return 0;
    }
    if (!s.positional().isEmpty()) {
      throw new dev.updraft.common.ConfigException(command + " takes no argument " + String.join(" ", s.positional()) + " (flags only)");
    }
    Progress progress = new Progress(err, command);
    try {
      if (command.equals("backup")) {
        Backup.Config config = Backup.Config.from(s);
        BackupManifest m = new Backup(config, progress).run();
        out.println("backup written to " + config.out() + ": " + m.events().records() + " events in " + m.events().partitions().size()
            + " partitions, " + m.snapshots().records() + " snapshot records, "
            + (m.keyStore() == null ? "no key store" : m.keyStore().files() + " key files (" + m.keyStore().sealed() + " sealed)")
            + "; " + m.files().size() + " files hashed in " + BackupManifest.NAME);
      } else if (command.equals("restore")) {
        Restore.Config config = Restore.Config.from(s);
        Restore.Summary r = new Restore(config, progress).run();
        out.println("restored into " + config.bootstrap() + " (prefix '" + config.prefix() + "'): " + r.events() + " events (offsets "
            + r.offsets() + "), " + r.snapshots() + " app snapshots and " + r.markers() + " partition markers, " + r.keyFiles()
            + " key files" + (config.keyStore() == null ? "" : " in " + config.keyStore())
            + (r.notes().isEmpty() ? "" : "; " + r.notes().size() + " snapshot records left out (above)"));
      } else {
        throw new IllegalArgumentException("not a backup command: " + command);
      }
      return 0;
    } catch (Refusal e) {
      err.println("updraft " + command + ": " + e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("updraft " + command + ": " + e.getMessage());
      return 1;
    }
  }
}
