/** A realistic generated event log (JSON lines and/or Kafka) for the cost-of-scale scenario. */
package dev.updraft.load.events;
