package dev.updraft.controlplane.api;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.sourcemaps.InvalidSourceMapException;
import dev.updraft.controlplane.sourcemaps.SourceMap;
import dev.updraft.controlplane.sourcemaps.SourceMaps;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.ImageObjects;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.nio.file.Files;

/**
 * {@code PUT /v1/apps/{app}/source-maps/{sha256}} (role publish): a launch asset's source map, streamed like an asset
 * ({@link AssetUpload}: token checked before a byte is read, 413 past {@code --max-asset-bytes}, 400
 * {@code hash-mismatch}), then parsed on a worker thread: a body that is not JSON or not a valid source map v3 is 400
 * {@code invalid-source-map} naming what is wrong. Stored in the storage's private area
 * ({@link AssetStorage#sourceMaps}), never in the assets devices fetch; a publish names it per platform.
 */
final class SourceMapRoutes {
  private final ApiContext ctx;

  SourceMapRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  private static String name(String sha256) {
    return SourceMaps.objectName(sha256);
  }

  void mount(Router router) {
    PublisherApi.Deps d = ctx.deps;
    AssetStorage storage = d.storage();
    router
        .put("/v1/apps/:app/source-maps/:sha256")
        .handler(ctx.auth.require(Role.PUBLISH))
        .handler(ctx::requireApp)
        .handler(new AssetUpload(ctx.vertx, d.tmpDir(), d.config().maxAssetBytes(), (app, sha, file, md5, size, type) -> {
          byte[] bytes = Files.readAllBytes(file);
          try {
            SourceMap.parse(bytes);
          } catch (InvalidSourceMapException e) {
            throw CommandException.badRequest("invalid-source-map", "the uploaded " + size + " bytes are not a source map v3: " + e.getMessage());
          }
          ImageObjects maps = storage.sourceMaps(app);
          if (maps.read(name(sha)) != null) {
            return false;
          }
          maps.write(name(sha), bytes);
          return true;
        }));
  }

  /** Whether the app's private area holds the map (worker thread); 503 when the storage cannot tell. */
  static boolean stored(AssetStorage storage, String app, String sha) {
    try {
      return storage.sourceMaps(app).read(name(sha)) != null;
    } catch (IOException e) {
      throw AssetUpload.storageUnavailable("could not say whether source map sha256=" + sha + " is stored", e);
    }
  }
}
