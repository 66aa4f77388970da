/**
 * Check-ins: one {@link dev.updraft.events.CheckIn} per device request, handed from the event loop to
 * a bounded queue without waiting and sent to {@code updraft.telemetry} by a thread of its own.
 */
package dev.updraft.edge.checkin;
