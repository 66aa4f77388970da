/**
 * Reading {@code updraft.events} into the edge's image: every partition from offset 0 with
 * {@code assign} (no consumer group), on one thread of its own, one image swap per poll.
 */
package dev.updraft.edge.log;
