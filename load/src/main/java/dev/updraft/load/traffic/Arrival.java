package dev.updraft.load.traffic;

/**
 * One request to send.
 *
 * @param intendedNanos the intended send time, nanoseconds from the start of the run
 * @param replay nullable: a recorded request to send as it is (replay); null for a fleet device
 */
public record Arrival(long intendedNanos, int phase, int window, Recorded replay) {}

