#!/usr/bin/env python3
"""Restart under load, judged from each edge's own request-time histogram (docs/benchmarks/edge.md).

Reads a `load run` time series (t_seconds,source,metric,scenario,value) with the sources `edge` (the survivor) and
`edge2` (the restarted edge), each scraped every second (rows server_requests and server_p99_ms, the p99 a bucket bound).
The restart is edge2's first failed scrape (row server_up 0), else its first second serving nothing after serving; its
steady p99 is the median of its seconds before that from the 5th (or, with none, of its seconds from 20 s after its
return); its first 5 s are the first 5 samples in which it served again. The survivor's p99 before
the restart (median) is set against its seconds from the stop to 10 s after edge2 returned (median and worst).
Prints one JSON object; the issue's targets: restarted first 5 s at most 2x its steady p99, the survivor unchanged.
Usage: load/bench/restart-verdict.py TIMESERIES.csv
"""
import csv
import json
import statistics
import sys


def series(rows, source, metric):
    return {float(r["t_seconds"]): float(r["value"]) if r["value"] != "" else float("inf")
            for r in rows if r["source"] == source and r["metric"] == metric}


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    served2 = series(rows, "edge2", "server_requests")
    up2 = series(rows, "edge2", "server_up")
    p99_2 = series(rows, "edge2", "server_p99_ms")
    p99_1 = series(rows, "edge", "server_p99_ms")
    # the stop: edge2's first failed scrape (server_up 0); else its first second serving nothing after serving
    down = sorted(t for t, v in up2.items() if v == 0)
    stop = down[0] if down else next((t for t in sorted(served2) if served2[t] == 0
                                      and any(u < t and served2[u] > 0 for u in served2)), None)
    back = None if stop is None else next((t for t in sorted(served2) if t > stop and served2[t] > 0), None)
    out = {"source": path}
    if stop is None or back is None:
        out["verdict"] = "no restart found in the time series (edge2 never stopped and came back)"
        print(json.dumps(out, indent=2))
        return
    before2 = [v for t, v in p99_2.items() if 5 <= t < stop] or [v for t, v in p99_2.items() if t >= back + 20]
    first5 = [p99_2[t] for t in sorted(p99_2) if t >= back][:5]
    steady2 = statistics.median_high(before2) if before2 else float("nan")
    worst5 = max(first5) if first5 else float("nan")
    before1 = [v for t, v in p99_1.items() if 5 <= t < stop]
    during1 = [v for t, v in p99_1.items() if stop <= t < back + 10]
    steady1 = statistics.median_high(before1) if before1 else float("nan")
    out.update({
        "restart_stop_s": stop, "restarted_serving_again_s": back,
        "restarted_steady_p99_at_most_ms": steady2,
        "restarted_first_5s_p99_at_most_ms": first5,
        "restarted_first_5s_worst_over_steady": worst5 / steady2 if steady2 else None,
        "restarted_target_met": worst5 <= 2 * steady2,
        "survivor_steady_p99_at_most_ms": steady1,
        "survivor_during_restart_p99_median_ms": statistics.median_high(during1) if during1 else None,
        "survivor_during_restart_p99_worst_ms": max(during1) if during1 else None,
        "survivor_unchanged": bool(during1) and statistics.median_high(during1) <= steady1,
        "note": "p99 values are bucket bounds of the edge's histogram (0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5, 7.5, 10, 25, 100, 500 ms)",
    })
    print(json.dumps(out, indent=2, default=lambda x: None))


if __name__ == "__main__":
    main(sys.argv[1])
