package dev.updraft.controlplane.sourcemaps;

/**
 * Where a generated position came from.
 *
 * @param source the original file as the map names it (with its {@code sourceRoot})
 * @param line 1-based
 * @param column 0-based, as in the map (Mozilla's {@code source-map} reports the same)
 * @param name the original name at that position, or null when the map names none
 */
public record Original(String source, int line, int column, String name) {}
