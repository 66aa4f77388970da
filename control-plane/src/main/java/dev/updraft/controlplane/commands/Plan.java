package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.state.ControlState;
import java.util.List;
import java.util.function.Function;

/**
 * What an accepted command does: the events to append (possibly none) and how to read its result from
 * the state once those events are folded.
 */
record Plan<T>(List<NewEvent> events, Function<ControlState, T> result) {
  public Plan {
    events = List.copyOf(events);
  }

  static <T> Plan<T> of(List<NewEvent> events, Function<ControlState, T> result) {
    return new Plan<>(events, result);
  }

  /** A command that changes nothing (an idempotent retry, say). */
  static <T> Plan<T> nothing(T value) {
    return new Plan<>(List.of(), s -> value);
  }
}
