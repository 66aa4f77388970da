/**
 * The edge's in-memory resolve state, modelled on Kafka's metadata image: an immutable
 * {@link dev.updraft.edge.image.ResolveImage} per point in the log, an
 * {@link dev.updraft.edge.image.ImageDelta} that events are replayed into, the
 * {@link dev.updraft.edge.image.Resolver} that decides one device's answer from an image, and the
 * {@link dev.updraft.edge.image.Prepared} bytes that answer is served with.
 */
package dev.updraft.edge.image;
