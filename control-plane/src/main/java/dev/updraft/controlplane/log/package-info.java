/**
 * The event log on Kafka: topic setup, the single-writer transactional producer (a fixed
 * {@code transactional.id}, so starting a second control plane fences the first), and the
 * {@code read_committed} reader that replays the log at start and then reads back each write.
 */
package dev.updraft.controlplane.log;
