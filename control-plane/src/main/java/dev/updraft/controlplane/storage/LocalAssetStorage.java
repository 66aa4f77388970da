package dev.updraft.controlplane.storage;

import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.render.UrlSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

/**
 * Assets in a local directory ({@code <dir>/<app>/<sha256>}, with a {@code .meta} file beside each
 * holding its MD5 and size), served by the control plane at {@code <public-url>/assets/<app>/<sha256><ext>}.
 * The extension in the URL only chooses the {@code content-type}; the bytes are found by hash. Files are
 * written to a temporary name and moved into place, so a reader never sees half a file. Thread-safe.
 */
public final class LocalAssetStorage implements AssetStorage {
  static final Pattern APP = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
  static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");

  private final Path dir;
  private final Path realDir;
  private final Supplier<String> publicUrl;

  /**
   * @param publicUrl the control plane's public base URL, known once it listens (port 0 in tests)
   */
  public LocalAssetStorage(Path dir, Supplier<String> publicUrl) throws IOException {
    this.dir = dir;
    this.publicUrl = publicUrl;
    Files.createDirectories(dir);
    this.realDir = dir.toRealPath();
  }

  @Override
  public ImageObjects sourceMaps(String appId) {
    if (!LocalAssetStorage.APP.matcher(appId).matches()) {
      throw new IllegalArgumentException("bad app id for source maps: " + appId);
    }
    return new ImageObjects.Local(dir.resolve(ImageObjects.MAPS_LOCAL_DIR).resolve(appId));
  }

  @Override
  public ImageObjects edgeImages() {
    return new ImageObjects.Local(dir.resolve(ImageObjects.LOCAL_DIR));
  }

  @Override
  public StoredAsset stat(String appId, String sha256Hex) throws IOException {
    Path data = file(appId, sha256Hex);
    if (!Files.isRegularFile(data)) {
      return null;
    }
    Path meta = data.resolveSibling(sha256Hex + ".meta");
    try {
      String[] lines = Files.readString(meta, StandardCharsets.US_ASCII).split("\n");
      return new StoredAsset(sha256Hex, lines[0].trim(), Long.parseLong(lines[1].trim()));
    } catch (NoSuchFileException | ArrayIndexOutOfBoundsException | NumberFormatException e) {
      // no or damaged meta file: recompute from the bytes
      String md5;
      try (InputStream in = new DigestInputStream(Files.newInputStream(data), md5())) {
        MessageDigest d = ((DigestInputStream) in).getMessageDigest();
        in.transferTo(OutputStream.nullOutputStream());
        md5 = HexFormat.of().formatHex(d.digest());
      }
      long size = Files.size(data);
      writeAtomically(meta, (md5 + "\n" + size + "\n").getBytes(StandardCharsets.US_ASCII));
      return new StoredAsset(sha256Hex, md5, size);
    }
  }

  @Override
  public StoredAsset put(String appId, String sha256Hex, Path file, String md5Hex, long size, String contentType)
      throws IOException {
    Path data = file(appId, sha256Hex);
    Files.createDirectories(data.getParent());
    writeAtomically(data.resolveSibling(sha256Hex + ".meta"), (md5Hex + "\n" + size + "\n").getBytes(StandardCharsets.US_ASCII));
    if (!Files.isRegularFile(data)) {
      Path tmp = data.resolveSibling(sha256Hex + ".tmp-" + UUID.randomUUID());
      try {
        Files.copy(file, tmp);
        move(tmp, data);
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
    return new StoredAsset(sha256Hex, md5Hex, size);
  }

  @Override
  public InputStream open(String appId, String sha256Hex) throws IOException {
    Path data = existing(appId, sha256Hex);
    if (data == null) {
      throw new NoSuchFileException("app " + appId + " sha256=" + sha256Hex);
    }
    return Files.newInputStream(data);
  }

  /** Stored like any asset, and copied beside the asset as {@code <sha256>.gz|.br|.zst} for the route. */
  @Override
  public StoredAsset putVariant(
      String appId, String sha256Hex, String encoding, Path file, String variantSha256, String md5Hex, long size)
      throws IOException {
    StoredAsset stored = put(appId, variantSha256, file, md5Hex, size, ContentTypes.OCTET_STREAM);
    Path alias = file(appId, sha256Hex).resolveSibling(sha256Hex + suffix(encoding));
    if (!Files.isRegularFile(alias)) {
      Path tmp = alias.resolveSibling(alias.getFileName() + ".tmp-" + UUID.randomUUID());
      try {
        Files.copy(file, tmp);
        move(tmp, alias);
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
    return stored;
  }

  /** Whether the copies beside the asset ({@link #putVariant}) exist for every one of {@code encodings}. */
  @Override
  public boolean hasVariants(String appId, String sha256Hex, java.util.List<String> encodings) {
    Path data = existing(appId, sha256Hex);
    if (data == null) {
      return false;
    }
    for (String encoding : encodings) {
      if (variant(data, encoding) == null) {
        return false;
      }
    }
    return true;
  }

  /** The stored copy of {@code data} in {@code encoding}, or null when none was stored. */
  Path variant(Path data, String encoding) {
    Path p = data.resolveSibling(data.getFileName() + suffix(encoding));
    return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? p : null;
  }

  private static String suffix(String encoding) {
    switch (encoding) {
      case "gzip":
        return ".gz";
      case "br":
        return ".br";
      case "zstd":
        return ".zst";
      default:
        throw new IllegalArgumentException("no stored variant for encoding=" + encoding);
    }
  }

  @Override
  public List<ListedAsset> list(String appId) throws IOException {
    file(appId, "0".repeat(64)); // checks the app id
    Path appDir = dir.resolve(appId);
    List<ListedAsset> out = new ArrayList<>();
    if (!Files.isDirectory(appDir, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(appDir)) {
      for (Path p : files) {
        String name = p.getFileName().toString();
        if (!SHA.matcher(name).matches()) {
          continue; // .meta, .gz and temporary files
        }
        try {
          BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          if (a.isRegularFile()) {
            out.add(new ListedAsset(name, a.size(), a.lastModifiedTime().toInstant()));
          }
        } catch (NoSuchFileException e) {
          // deleted while listing
        }
      }
    }
    return out;
  }

  @Override
  public void delete(String appId, String sha256Hex) throws IOException {
    Path data = file(appId, sha256Hex);
    Files.deleteIfExists(data);
    Files.deleteIfExists(data.resolveSibling(sha256Hex + ".gz"));
    Files.deleteIfExists(data.resolveSibling(sha256Hex + ".br"));
    Files.deleteIfExists(data.resolveSibling(sha256Hex + ".zst"));
    Files.deleteIfExists(data.resolveSibling(sha256Hex + ".meta"));
  }

  @Override
  public UrlSource urls(String appId) {
    return (sha, ext, contentType) ->
        publicUrl.get() + "/assets/" + appId + "/" + sha + (ext != null ? ext : ContentTypes.JAVASCRIPT.equals(contentType) ? ".js" : "");
  }

  @Override
  public Duration urlTtl() {
    return null;
  }

  @Override
  public String describe() {
    return "local dir=" + dir;
  }

  /** The stored file, or null when the address is malformed or nothing is stored there. */
  Path existing(String appId, String sha256Hex) {
    if (!APP.matcher(appId).matches() || !SHA.matcher(sha256Hex).matches()) {
      return null;
    }
    Path appDir = dir.resolve(appId);
    Path p = appDir.resolve(sha256Hex);
    // never follow a link planted inside the storage directory: the file served must be a regular file
    // that really lies under it
    if (Files.isSymbolicLink(appDir) || Files.isSymbolicLink(p) || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try {
      Path real = p.toRealPath();
      return real.startsWith(realDir) ? real : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The gzip-compressed copy of a stored file, made on first use (blocking). */
  Path gzipped(Path data) throws IOException {
    Path gz = data.resolveSibling(data.getFileName() + ".gz");
    if (Files.isRegularFile(gz)) {
      return gz;
    }
    Path tmp = gz.resolveSibling(gz.getFileName() + ".tmp-" + UUID.randomUUID());
    try {
      try (InputStream in = Files.newInputStream(data);
          OutputStream out = new GZIPOutputStream(Files.newOutputStream(tmp), 64 * 1024)) {
        in.transferTo(out);
      }
      move(tmp, gz);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return gz;
  }

  private Path file(String appId, String sha256Hex) {
    if (!APP.matcher(appId).matches() || !SHA.matcher(sha256Hex).matches()) {
      throw new IllegalArgumentException("bad asset address appId=" + appId + " sha256=" + sha256Hex);
    }
    return dir.resolve(appId).resolve(sha256Hex);
  }

  private static void writeAtomically(Path target, byte[] content) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp-" + UUID.randomUUID());
    try {
      Files.write(tmp, content);
      move(tmp, target);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 missing from this JVM", e);
    }
  }
}
