/**
 * Commands: each is validated against the current state on the single command thread and, when
 * accepted, becomes events appended in one Kafka transaction. A rejected command appends nothing.
 * Commands run one at a time, so each app's {@code sequence} stays gap-free.
 */
package dev.updraft.controlplane.commands;
