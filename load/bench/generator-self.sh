#!/usr/bin/env bash
# The load generator measured against its own trivial baseline server (docs/benchmarks/load-generator.md):
# no Updraft process runs. Two runs: a stepped ramp 1,000 -> 12,000 req/s (142 s) and xprem's phases
# compressed 10x in time (99 s). Each writes its summary JSON and time series under $OUT. The ramp starts
# after WARMUP (30000) untimed requests: without them both JVMs spend its first minute compiling.
# Usage: load/bench/generator-self.sh        Environment: OUT (result dir), PORT (baseline port, 3921)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/load/results/$(date -u +%Y-%m-%d)}
PORT=${PORT:-3921}
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
# CPU time the hypervisor gave to other guests (vmstat's st, %), averaged over 5 s: a VM's noisy neighbours
steal() { vmstat 1 6 | awk 'NR > 3 { s += $17; n++ } END { printf "%.0f", s / n }'; }

UPDRAFT_JAVA_OPTS="-Xmx512m -XX:+UseParallelGC" nohup ./updraft load baseline --port "$PORT" --event-loops 2 \
  > "$OUT/baseline.log" 2>&1 &
BASE=$!
trap 'kill $BASE 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
# the java process under the launcher (the PID the generator samples in /proc)
JPID=$(pgrep -P "$BASE" java || echo "$BASE")
log "baseline on $PORT (pid $JPID)"

run() { # name, profile flags...
  local name=$1; shift
  log "uptime before $name: $(uptime); steal $(steal) %"
  UPDRAFT_JAVA_OPTS="-Xmx1g -XX:+UseParallelGC" ./updraft load run --target "http://127.0.0.1:$PORT" \
    --pids "baseline=$JPID" --name "$name" --out-dir "$OUT" "$@" > "$OUT/$name.out" 2>&1 || log "$name exit $?"
  log "uptime after $name: $(uptime); steal $(steal) %"
}
run knee2 --warmup "${WARMUP:-30000}" --profile knee --knee-from 1000 --knee-to 12000 --knee-step 1000 --knee-hold 10s --knee-ramp 2s
run xprem-short-vs-baseline --profile xprem-short
log "done: $OUT"
