package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.storage.AssetStorage;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code PUT /v1/apps/{app}/assets/{sha256}}: streams the body to a temporary file while hashing it
 * (SHA-256 and MD5), refuses it with 413 past {@code --max-asset-bytes} and with 400 when its SHA-256 is
 * not the one in the path, then stores it (503 when the storage fails: nothing is stored then). Uploading
 * stored bytes again is harmless (200 instead of 201).
 * The request is paused until the file is open, and paused whenever the file's write queue is full.
 */
final class AssetUpload implements Handler<RoutingContext> {
  static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");
  private static final Logger LOG = LoggerFactory.getLogger(AssetUpload.class);
  private static final Pattern MIME = Pattern.compile("[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}");

  private final Vertx vertx;
  private final Path tmpDir;
  private final long maxBytes;
  private final Sink sink;

  /**
   * Where verified bytes go (called on a worker thread): returns whether they were new (201) or stored already (200);
   * throws a {@link CommandException} to refuse them.
   */
  interface Sink {
    boolean store(String app, String sha, Path file, String md5Hex, long size, String contentType) throws IOException;
  }

  AssetUpload(Vertx vertx, AssetStorage storage, Path tmpDir, long maxBytes) {
    this(vertx, tmpDir, maxBytes, (app, sha, file, md5Hex, size, contentType) -> {
      boolean existed = storage.stat(app, sha) != null;
      storage.put(app, sha, file, md5Hex, size, contentType);
      return !existed;
    });
  }

  AssetUpload(Vertx vertx, Path tmpDir, long maxBytes, Sink sink) {
    this.vertx = vertx;
    this.tmpDir = tmpDir;
    this.maxBytes = maxBytes;
    this.sink = sink;
  }

  @Override
  public void handle(RoutingContext rc) {
    HttpServerRequest req = rc.request();
    req.pause();
    String app = rc.pathParam("app");
    String sha = rc.pathParam("sha256");
    if (sha == null || !SHA.matcher(sha).matches()) {
      throw new CommandException(400, "invalid-sha256", "the path must end with the lower-case hex SHA-256 of the bytes (64 characters)");
    }
    String cl = req.getHeader("content-length");
    if (cl != null) {
      long n;
      try {
        n = Long.parseLong(cl.trim());
      } catch (NumberFormatException e) {
        throw new CommandException(400, "bad-request", "content-length is not a number");
      }
      if (n > maxBytes) {
        rc.response().putHeader("connection", "close");
        throw tooLarge(n);
      }
    }
    String contentType = contentType(req.getHeader("content-type"));
    Upload u = new Upload(rc, app, sha, contentType);
    vertx
        .fileSystem()
        .createTempFile(tmpDir.toString(), "upload-", ".part", (String) null)
        .compose(p -> {
          u.path = Path.of(p);
          return vertx.fileSystem().open(p, new OpenOptions().setWrite(true).setTruncateExisting(true));
        })
        .onComplete(
            ar -> {
              if (ar.failed()) {
                u.abort(new CommandException(500, "internal", "cannot open a temporary file for the upload: " + ar.cause().getMessage()));
                return;
              }
              u.file = ar.result();
              req.handler(u::chunk);
              req.endHandler(v -> u.end());
              req.exceptionHandler(t -> u.abort(null));
              if (req.headers().contains("expect", "100-continue", true)) {
                // authorized and within the limit: curl (a body over 1 MiB) waits a second for this before sending
                rc.response().writeContinue();
              }
              req.resume();
            });
  }

  /** 503: the asset store failed (unreachable, refusing); nothing was stored, the client may retry. */
  static CommandException storageUnavailable(String what, IOException e) {
    LOG.warn("asset storage {}: {}", what, e.toString());
    return new CommandException(503, "storage-unavailable", "the asset storage " + what + " (" + e.getMessage() + "); retry later");
  }

  private CommandException tooLarge(long n) {
    return new CommandException(
        413, "too-large", "asset of " + n + " bytes is above this server's limit of " + maxBytes + " bytes (--max-asset-bytes)");
  }

  private static String contentType(String header) {
    if (header == null) {
      return "application/octet-stream";
    }
    String t = header.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    return MIME.matcher(t).matches() ? t : "application/octet-stream";
  }

  private final class Upload {
    final RoutingContext rc;
    final String app;
    final String sha;
    final String contentType;
    final MessageDigest sha256 = digest("SHA-256");
    final MessageDigest md5 = digest("MD5");
    long size;
    Path path;
    AsyncFile file;
    boolean failed;

    Upload(RoutingContext rc, String app, String sha, String contentType) {
      this.rc = rc;
      this.app = app;
      this.sha = sha;
      this.contentType = contentType;
    }

    void chunk(Buffer b) {
      if (failed) {
        return;
      }
      size += b.length();
      if (size > maxBytes) {
        rc.response().putHeader("connection", "close");
        abort(tooLarge(size));
        return;
      }
      byte[] bytes = b.getBytes();
      sha256.update(bytes);
      md5.update(bytes);
      file.write(b);
      if (file.writeQueueFull()) {
        rc.request().pause();
        file.drainHandler(v -> rc.request().resume());
      }
    }

    void end() {
      if (failed) {
        return;
      }
      String got = HexFormat.of().formatHex(sha256.digest());
      String md5Hex = HexFormat.of().formatHex(md5.digest());
      file.close()
          .compose(
              v -> {
                if (!got.equals(sha)) {
                  return io.vertx.core.Future.failedFuture(
                      new CommandException(
                          400, "hash-mismatch",
                          "the uploaded " + size + " bytes hash to sha256=" + got + ", not " + sha + "; upload the file whose SHA-256 is in the path"));
                }
                return vertx.executeBlocking(
                    () -> {
                      try {
                        return sink.store(app, sha, path, md5Hex, size, contentType);
                      } catch (IOException e) {
                        throw storageUnavailable("did not take the upload of sha256=" + sha, e);
                      }
                    });
              })
          .onComplete(
              ar -> {
                deleteTemp();
                if (ar.failed()) {
                  rc.fail(ar.cause());
                  return;
                }
                ObjectNode n = Json.MAPPER.createObjectNode();
                n.put("sha256", sha);
                n.put("md5", md5Hex);
                n.put("size", size);
                n.put("stored", ar.result());
                Json.send(rc, ar.result() ? 201 : 200, n);
              });
    }

    void abort(CommandException e) {
      if (failed) {
        return;
      }
      failed = true;
      if (file != null) {
        file.close().onComplete(ar -> deleteTemp());
      } else {
        deleteTemp();
      }
      if (e != null) {
        rc.fail(e);
      }
    }

    void deleteTemp() {
      if (path != null) {
        Path p = path;
        vertx.executeBlocking(() -> Files.deleteIfExists(p));
      }
    }
  }

  private static MessageDigest digest(String alg) {
    try {
      return MessageDigest.getInstance(alg);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(alg + " missing from this JVM", e);
    }
  }
}
