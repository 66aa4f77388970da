package dev.updraft.load;

/** A source of arrivals in time order. Owned by the scheduler thread. */
interface ArrivalSource {
  /** The next arrival, or null when there are no more. */
  Arrival next();
}

