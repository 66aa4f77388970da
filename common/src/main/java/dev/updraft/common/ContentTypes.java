package dev.updraft.common;

import java.util.Locale;
import java.util.Map;

/**
 * The one extension → content-type table: the CLI sends it with each uploaded asset, the control plane
 * renders it as a manifest asset's {@code contentType} and serves it on the local asset route. Bundles
 * ({@code js}, {@code hbc}) are {@code application/javascript}, the type expo-updates expects for a
 * launch asset; an unknown extension is {@code application/octet-stream}. Immutable, thread-safe.
 */
public final class ContentTypes {
  public static final String JAVASCRIPT = "application/javascript";
  public static final String OCTET_STREAM = "application/octet-stream";

  private static final Map<String, String> BY_EXTENSION =
      Map.ofEntries(
          Map.entry("js", JAVASCRIPT),
          Map.entry("hbc", JAVASCRIPT),
          Map.entry("mjs", JAVASCRIPT),
          Map.entry("json", "application/json"),
          Map.entry("png", "image/png"),
          Map.entry("jpg", "image/jpeg"),
          Map.entry("jpeg", "image/jpeg"),
          Map.entry("gif", "image/gif"),
          Map.entry("webp", "image/webp"),
          Map.entry("bmp", "image/bmp"),
          Map.entry("ico", "image/x-icon"),
          Map.entry("svg", "image/svg+xml"),
          Map.entry("avif", "image/avif"),
          Map.entry("heic", "image/heic"),
          Map.entry("ttf", "font/ttf"),
          Map.entry("otf", "font/otf"),
          Map.entry("woff", "font/woff"),
          Map.entry("woff2", "font/woff2"),
          Map.entry("mp3", "audio/mpeg"),
          Map.entry("wav", "audio/wav"),
          Map.entry("m4a", "audio/mp4"),
          Map.entry("aac", "audio/aac"),
          Map.entry("ogg", "audio/ogg"),
          Map.entry("mp4", "video/mp4"),
          Map.entry("mov", "video/quicktime"),
          Map.entry("webm", "video/webm"),
          Map.entry("html", "text/html"),
          Map.entry("css", "text/css"),
          Map.entry("txt", "text/plain"),
          Map.entry("xml", "application/xml"),
          Map.entry("pdf", "application/pdf"),
          Map.entry("zip", "application/zip"),
          Map.entry("db", OCTET_STREAM),
          Map.entry("bin", OCTET_STREAM));

  private ContentTypes() {}

  /** The MIME type of an extension given with or without its dot; octet-stream when unknown. */
  public static String of(String extension) {
    if (extension == null) {
      return OCTET_STREAM;
    }
    String e = extension.startsWith(".") ? extension.substring(1) : extension;
    return BY_EXTENSION.getOrDefault(e.toLowerCase(Locale.ROOT), OCTET_STREAM);
  }

  /** Whether gzip makes a body smaller: text-like types, not already compressed media. */
  public static boolean compressible(String contentType) {
    return contentType.startsWith("text/")
        || contentType.equals(JAVASCRIPT)
        || contentType.equals("application/json")
        || contentType.equals("application/xml")
        || contentType.equals("image/svg+xml")
        || contentType.equals("image/bmp")
        || contentType.equals("font/ttf")
        || contentType.equals("font/otf")
        || contentType.equals(OCTET_STREAM);
  }
}
