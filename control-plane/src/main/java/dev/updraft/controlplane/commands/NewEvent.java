package dev.updraft.controlplane.commands;

import dev.updraft.events.EventPayload;

/** An event a command wants appended; the processor assigns its sequence, id and time. */
record NewEvent(String appId, String actor, EventPayload payload) {}
