package dev.updraft.launcher.backup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The control plane's key store ({@code --key-store-dir}: {@code <app>/<certificate sha256>.key}) copied byte
 * for byte: a key sealed with {@code --master-key} stays sealed, a key in clear stays in clear; nothing is
 * decrypted. Directories are made {@code 0700} and files {@code 0600}, in the backup as in the key store.
 * Files of another shape (a write cut short, {@code *.tmp-*}) are not copied. Not thread-safe.
 */
final class KeyFiles {
  /** The first line of a sealed key file (the control plane's {@code KeyStore}). */
  static final String SEALED_HEADER = "updraft-sealed-key-v1";
  private static final Pattern APP = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
  private static final Pattern FILE = Pattern.compile("[0-9a-f]{64}\\.key");
  static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE_PERMS = PosixFilePermissions.fromString("rw-------");
  private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  private KeyFiles() {}

  /** A key file: its path relative to the key store ({@code app/sha.key}) and whether it is sealed. */
  record KeyFile(String relative, boolean sealed) {}

  /** The key files under {@code store}, sorted; throws {@link Refusal} when it is not a directory. */
  static List<KeyFile> list(Path store) throws IOException {
    if (!Files.isDirectory(store)) {
      throw new Refusal("no key store at " + store + ": give the control plane's --key-store-dir (or --data-dir), or --no-key-store"
          + " to back up the topics alone");
    }
    List<KeyFile> out = new ArrayList<>();
    try (Stream<Path> apps = Files.list(store)) {
      for (Path app : apps.sorted().toList()) {
        if (!Files.isDirectory(app) || !APP.matcher(app.getFileName().toString()).matches()) {
          continue;
        }
        try (Stream<Path> files = Files.list(app)) {
          for (Path f : files.sorted().toList()) {
            if (Files.isRegularFile(f) && FILE.matcher(f.getFileName().toString()).matches()) {
              out.add(new KeyFile(app.getFileName() + "/" + f.getFileName(), sealed(f)));
            }
          }
        }
      }
    }
    return out;
  }

  private static boolean sealed(Path f) throws IOException {
    byte[] head = SEALED_HEADER.getBytes(StandardCharsets.US_ASCII);
    try (var in = Files.newInputStream(f)) {
      return Arrays.equals(in.readNBytes(head.length), head);
    }
  }

  /** Copies {@code from/relative} to {@code to/relative}, making the directories and the file owner-only. */
  static void copy(Path from, Path to, String relative) throws IOException {
    Path target = to.resolve(relative);
    directory(target.getParent());
    byte[] bytes = Files.readAllBytes(from.resolve(relative));
    if (POSIX) {
      Files.createFile(target, PosixFilePermissions.asFileAttribute(FILE_PERMS));
    } else {
      Files.createFile(target);
    }
    Files.write(target, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
  }

  /** Makes {@code dir} (and its parents) when missing; {@code dir} itself becomes {@code 0700}. */
  static void directory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir);
    }
    if (POSIX) {
      Files.setPosixFilePermissions(dir, DIR_PERMS);
    }
  }

  /** Whether {@code dir} is missing or an empty directory. */
  static boolean absentOrEmpty(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return true;
    }
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }
}
