package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.ControlState;
import java.time.Instant;

/**
 * A command's logic: validate against the state and plan its events, or throw {@link CommandException}.
 * Runs on the command thread.
 */
@FunctionalInterface
interface Decision<T> {
  Plan<T> decide(ControlState state, Instant now);
}
