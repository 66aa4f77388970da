#!/usr/bin/env bash
# Warms a fresh dev stack's check-in pipeline (Kafka, the ingester, PostgreSQL) before a measured run, through
# the dev stack's own edge, in rounds of 20 s at RATE until the dev JVM's JIT compiled for less than 2 s of a
# round (at most ROUNDS rounds). A fresh `updraft dev` JIT-compiles the check-in path for minutes once check-ins
# flow: 0.3-1 of a core for 2.5 minutes at 3,000 req/s on a 2-core machine (flight recording, 2026-12-02), enough
# to push a knee hold's p99 past 10 ms; a fleet's pipeline is never cold (other edges feed it).
# Usage: load/bench/pipeline-warmup.sh DEV_PID DEV_EDGE_URL OUT_DIR   (environment: RATE [2000], ROUNDS [12], APP [demo];
#   UPDRAFT_SERVER and UPDRAFT_TOKEN as for the other commands). Prints one line per round.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
dev=$1 target=$2 out=$3
rate=${RATE:-2000} rounds=${ROUNDS:-12}
# jstat from the JDK the launcher uses (JAVA_HOME first, as ./updraft looks for java)
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/jstat" ]; then jstat=$JAVA_HOME/bin/jstat
else jstat="$(dirname "$(readlink -f "$(command -v java)")")/jstat"; fi
[ -x "$jstat" ] || { echo "pipeline-warmup.sh: no jstat next to java ($jstat): it needs a JDK, not a JRE" >&2; exit 2; }
jit_seconds() { "$jstat" -compiler "$dev" | awk 'NR==2 {print $4}'; }
mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
  t0=$(jit_seconds)
  ./updraft load run --name pipeline-warmup --target "$target" --app "${APP:-demo}" --channels production \
    --runtime-versions 1.0.0 --out-dir "$out" --profile constant --rate "$rate" --duration 20s --warmup 2000 \
    > "$out/pipeline-warmup-$i.out" 2>&1 || true
  t1=$(jit_seconds)
  spent=$(echo "$t1 - $t0" | bc)
  echo "[$(date -u +%H:%M:%S)] pipeline warm-up round $i of $rounds at $rate req/s: the dev stack's JIT compiled for $spent s of 20 s" >&2
  if [ "$(echo "$spent < 2" | bc)" = 1 ]; then exit 0; fi
done
echo "[$(date -u +%H:%M:%S)] pipeline warm-up: the dev stack's JIT was still busy after $rounds rounds; measuring anyway" >&2
