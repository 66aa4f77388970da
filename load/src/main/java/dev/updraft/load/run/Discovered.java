package dev.updraft.load.run;

import dev.updraft.load.fleet.Fleet;

/**
 * What discovery learned for one key.
 *
 * @param updateId nullable: nothing published (devices run their embedded bundle)
 * @param noUpdate nullable: the answer to a device that runs {@code updateId}
 */
public record Discovered(Fleet.Key key, String updateId, String createdAt, Captured manifest, Captured noUpdate) {}
