package dev.updraft.edge.image;

import io.netty.util.AsciiString;

/**
 * The {@code expo-manifest-filters} value of a branch: an SF dictionary with one lower-case key,
 * {@code branchname="<branch>"}, which manifests published with {@code metadata.branchName} match
 * (expo-updates compares metadata keys in lower case; a manifest without the key passes:
 * {@code SelectionPolicies.matchesFilters}). Stateless and thread-safe.
 */
final class ManifestFilters {
  private ManifestFilters() {}

  /** The header value for {@code branch}, or null when the branch cannot be written as an sf-string. */
  static AsciiString header(String branch) {
    String s = branch == null ? null : StructuredHeaders.string(branch);
    return s == null ? null : AsciiString.cached("branchname=" + s);
  }
}
