/**
 * Source maps uploaded at publish (issue 42): a source map v3 decoder ({@link SourceMap}: base64 VLQ
 * {@code mappings}, {@code sources}, {@code names}, {@code sources} index maps with {@code sections}), the top frame
 * of a JavaScript stack trace with its position ({@link TopFrame}), and a cache of parsed maps bounded by bytes
 * ({@link SourceMapCache}). Maps are private: stored beside the assets in an area no URL names, never in a manifest.
 */
package dev.updraft.controlplane.sourcemaps;
