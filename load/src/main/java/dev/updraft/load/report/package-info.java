/** The result files read by people: the summary JSON (totals, phases, windows, capacity and knee, baseline ratio, limits) and the self-contained HTML report. */
package dev.updraft.load.report;
