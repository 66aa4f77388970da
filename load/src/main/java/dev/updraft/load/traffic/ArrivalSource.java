package dev.updraft.load.traffic;

/** A source of arrivals in time order. Owned by the scheduler thread. */
public interface ArrivalSource {
  /** The next arrival, or null when there are no more. */
  public Arrival next();
}

