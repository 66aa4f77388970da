package dev.updraft.controlplane.render;

/** Where the bytes of an asset can be fetched: an absolute URL (local route, CDN, or pre-signed). */
@FunctionalInterface
public interface UrlSource {
  /**
   * @param fileExtension with its dot; null for the launch asset
   */
  String url(String sha256Hex, String fileExtension, String contentType);
}
