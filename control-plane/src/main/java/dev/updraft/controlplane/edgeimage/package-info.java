/**
 * The edge image the control plane writes to the asset storage ({@code --edge-image-key}): the image an edge would
 * build at start, in the edge's own format, sealed and named by a pointer, so that an edge with no image of its own
 * can serve during a Kafka outage ({@code updraft edge --image-source}).
 */
package dev.updraft.controlplane.edgeimage;
