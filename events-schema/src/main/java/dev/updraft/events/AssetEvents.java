package dev.updraft.events;

import java.util.List;

/**
 * Launch assets and what the work after a publish adds: their encodings, bundle patches, registered builds: the
 * events {@link LaunchAssetStored}, {@link PatchesComputed}, {@link BuildRegistered}, and the values they carry
 * ({@link AssetVariant}, {@link BundlePatch}).
 *
 * <p>A namespace of {@link EventPayload}, which extends it: each record is also named {@code EventPayload.<Name>}
 * (imports use this interface's name). Records immutable.
 */
public interface AssetEvents {
  /**
   * Where a launch asset's bytes can be fetched, in each stored encoding: what an edge's asset route
   * streams to a device that gets the full bundle. A later event for the same {@code sha256} replaces the
   * earlier one (more encodings stored, or fresh pre-signed URLs).
   *
   * @param sha256 lower-case hex SHA-256 of the decoded bytes (the manifest {@code hash}, in hex)
   * @param variants at least the {@link AssetVariant#IDENTITY} one
   */
  record LaunchAssetStored(String sha256, String contentType, long size, List<AssetVariant> variants)
      implements EventPayload {
    public LaunchAssetStored {
      variants = variants == null ? List.of() : List.copyOf(variants);
    }

    /** The variant in {@code encoding}, or null. */
    public AssetVariant variant(String encoding) {
      for (AssetVariant v : variants) {
        if (v.encoding().equals(encoding)) {
          return v;
        }
      }
      return null;
    }
  }

  /**
   * One stored encoding of an asset.
   *
   * @param encoding {@code identity}, {@code gzip}, {@code br} or {@code zstd} (the {@code content-encoding})
   * @param sha256 hex SHA-256 of these (encoded) bytes: what a fetch of {@code url} must hash to
   * @param size bytes at {@code url}
   * @param url absolute URL of these bytes (public, CDN, local route or pre-signed)
   */
  record AssetVariant(String encoding, String sha256, long size, String url) {
    public static final String IDENTITY = "identity";
  }

  /**
   * Bundle patches computed for a group (after its publish, or again with fresh URLs). Each replaces an
   * earlier patch for the same target and base bundle. Only patches at most half the gzip size of the
   * full bundle are recorded; {@code patches} is empty when none was worth keeping.
   */
  record PatchesComputed(String groupId, List<BundlePatch> patches) implements EventPayload {
    public PatchesComputed {
      patches = patches == null ? List.of() : List.copyOf(patches);
    }
  }

  /**
   * A {@code BSDIFF40} patch from one launch asset to another.
   *
   * @param targetSha256 hex SHA-256 of the bundle the patch produces
   * @param baseSha256 hex SHA-256 of the bundle it applies to
   * @param baseUpdateIds the update ids (published or embedded) whose launch asset is the base: what
   *     devices send as their current update
   * @param sha256 hex SHA-256 of the patch bytes (their storage address)
   * @param size patch bytes
   * @param url absolute URL of the patch bytes
   */
  record BundlePatch(
      String platform,
      String targetSha256,
      String baseSha256,
      List<String> baseUpdateIds,
      String sha256,
      long size,
      String url) {
    public BundlePatch {
      baseUpdateIds = baseUpdateIds == null ? List.of() : List.copyOf(baseUpdateIds);
    }
  }

  /**
   * A native build's embedded update: a patch base for devices naming its id, when its expo-updates applies such patches.
   *
   * @param embeddedUpdateId the {@code expo-embedded-update-id} the build sends, lower case
   * @param bundleSha256 hex SHA-256 of the embedded bundle (stored like an asset)
   * @param expoUpdatesVersion nullable (since 2026-12-06): the build's expo-updates release ({@code 57.0.24}); null = unknown
   */
  record BuildRegistered(String platform, String runtimeVersion, String embeddedUpdateId, String bundleSha256, long size,
      String expoUpdatesVersion) implements EventPayload {}
}
