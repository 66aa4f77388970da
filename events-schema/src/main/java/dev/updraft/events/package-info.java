/**
 * The contract between the control plane, the edge nodes and the telemetry ingester: the event
 * envelope written to {@code updraft.events}, every event type as an immutable record, the check-in
 * written to {@code updraft.telemetry}, and the JSON codec for both; and the edge image ({@link StoredImage}, sealed by
 * {@link ImageSeal} and named by an {@link ImagePointer} in the asset storage), which the control plane writes and
 * edges read.
 *
 * <p>Compatibility rules are in {@code events-schema/COMPATIBILITY.md}; golden files under
 * {@code src/test/resources/golden/} prove that bytes written by every released version still decode.
 */
package dev.updraft.events;
