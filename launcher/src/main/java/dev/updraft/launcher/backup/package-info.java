/**
 * {@code updraft backup} and {@code updraft restore}: the committed event log and snapshots, the key store as
 * stored and a manifest of hashes, and their restore into empty topics with the snapshots' absolute offsets
 * moved to where the events landed. {@link dev.updraft.launcher.backup.BackupCommands} is the entry.
 */
package dev.updraft.launcher.backup;
