#!/usr/bin/env bash
# Start-to-ready of `./updraft dev` (README "Start-up times"): from launching the command until the
# edge's /readyz answers 200, on an empty data dir (cold) and again on the same data dir (warm), RUNS
# times each. Prints one line per start and the medians, and writes them to a summary JSON.
# Usage: load/bench/startup.sh [RUNS=3] [OUT=target/startup-summary.json]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-3}
OUT=${2:-target/startup-summary.json}
mkdir -p "$(dirname "$OUT")"
. "$ROOT/load/bench/tree.sh"; measured_tree
EDGE=3300; CONTROL=8300
./updraft --help >/dev/null 2>&1 || true   # builds the launcher first if it is stale, outside the clock

start_once() { # data dir -> ms to ready
  local dir=$1 t0 t1 pid i=0
  t0=$(date +%s%N)
  ./updraft dev --data-dir "$dir" --control-port $CONTROL --edge-port $EDGE --admin-token startup-bench-token-0123456789 > "$dir.log" 2>&1 &
  pid=$!
  until curl -fs -o /dev/null http://127.0.0.1:$EDGE/readyz; do
    i=$((i+1)); [ $i -gt 1200 ] && { echo "not ready after 120 s; see $dir.log" >&2; kill $pid; exit 1; }
    sleep 0.1
  done
  t1=$(date +%s%N)
  kill $pid; wait $pid 2>/dev/null || true
  echo $(( (t1 - t0) / 1000000 ))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cold=(); warm=(); loads=()
for r in $(seq 1 "$RUNS"); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  dir=$(mktemp -d /tmp/updraft-startup.XXXXXX)
  c=$(start_once "$dir/data"); w=$(start_once "$dir/data")
  echo "run $r: cold ${c} ms, warm ${w} ms"
  cold+=("$c"); warm+=("$w")
  rm -rf "$dir"
done
cold_median=$(printf '%s\n' "${cold[@]}" | median); warm_median=$(printf '%s\n' "${warm[@]}" | median)
echo "median of $RUNS: cold $cold_median ms, warm $warm_median ms ($(nproc) cores, $(java -version 2>&1 | head -n1))"
cat > "$OUT" <<JSON
{"runs": $RUNS, "coldMillisMedian": $cold_median, "warmMillisMedian": $warm_median,
 "coldMillisEach": [$(IFS=,; echo "${cold[*]}")], "warmMillisEach": [$(IFS=,; echo "${warm[*]}")],
 "loadAverageAtEachRun": [$(IFS=,; echo "${loads[*]}")],
 "machine": {"cores": $(nproc), "java": "$(java -version 2>&1 | head -n1 | sed 's/"/\\"/g')"}}
JSON
echo "wrote $OUT"
