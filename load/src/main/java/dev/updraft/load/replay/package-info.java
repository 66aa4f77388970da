/** Recorded device requests (JSON lines) replayed as arrivals, open-model, at a speed. */
package dev.updraft.load.replay;
