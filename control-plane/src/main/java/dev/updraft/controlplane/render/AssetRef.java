package dev.updraft.controlplane.render;

import java.util.Objects;

/**
 * One asset as a manifest names it.
 *
 * @param sha256Hex SHA-256 of the bytes, lower-case hex (the storage address)
 * @param md5Hex MD5 of the bytes, lower-case hex: the manifest {@code key}
 * @param contentType MIME type
 * @param fileExtension with its dot ({@code .png}); null for the launch asset (protocol.md section 3)
 */
public record AssetRef(String sha256Hex, String md5Hex, String contentType, String fileExtension) {
  public AssetRef {
    Objects.requireNonNull(sha256Hex, "sha256Hex");
    Objects.requireNonNull(md5Hex, "md5Hex");
    Objects.requireNonNull(contentType, "contentType");
    if (fileExtension != null && !fileExtension.startsWith(".")) {
      throw new IllegalArgumentException("fileExtension must start with a dot: fileExtension=" + fileExtension);
    }
  }
}
