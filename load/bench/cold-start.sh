#!/usr/bin/env bash
# Cold start of an edge (docs/benchmarks/archive/cold-start.md, issue 19): `./updraft dev` (Kafka, PostgreSQL,
# control plane, ingester) with one app and the fixture's update published; then, for each mode, a fresh
# edge process (`./updraft edge`, its own JVM) is started and, as soon as its /readyz answers 200, the
# issue's constant run goes at it (2,000 req/s for 40 s, signatures requested and verified, the
# generator's own 20,000 untimed warm-up requests first): once with the edge's warm-up on (the default) and
# once with `--warmup-requests 0` (the behaviour before it), `bounds-20k` (the warm-up's bounds before it waited
# for the hot path's C2 code: 20,000 requests, 10 s), `jit-quarter` (the JIT's compile thresholds at a
# quarter, -XX:CompileThresholdScaling=0.25), and once with `--checkins false` (to see what the
# check-ins of the generator's warm-up cost the first seconds; MODES picks). The dev stack's and PostgreSQL's
# CPU are sampled too (`--pids`). Prints per run the verdict, drops, start to
# ready, and the worst one-second p99 (first second included, from the time series); copies each summary
# JSON, a text line and the time series' first 10 seconds to $OUT. The generator warms up on a mirror of the
# edge's answers (`--warmup-on mirror`, its default: its own code hot, no warm-up check-ins into the pipeline);
# the mode `gen-warmup-on-target` sends its warm-up to the edge instead, as before.
# Before the modes, the check-in pipeline is warmed through the dev stack's own edge until the dev stack's JIT is
# quiet (load/bench/pipeline-warmup.sh, PIPELINE_WARMUP_ROUNDS [12]; 0 skips it).
# Usage: load/bench/cold-start.sh   (environment: OUT, RATE [2000], MODES, PREFIX [cold-start]: the files' name prefix,
#   PIN=1: the measured edge on CPU 1 and everything else on CPU 0 (taskset),
#   EDGE_JAVA_OPTS: more JVM options for the measured edge, e.g. a flight recording of its first seconds:
#   EDGE_JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/edge.jfr,settings=profile,dumponexit=true" with UPDRAFT_CDS=0:
#   a run that writes the class-data archive at exit lost its recording in run 13)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/docs/benchmarks/runs/$(date -u +%Y-%m-%d)}
RATE=${RATE:-2000}
PREFIX=${PREFIX:-cold-start}
TOKEN=bench-admin-token-0123456789abcdef
CONTROL=8080; DEV_EDGE=3000; EDGE=3100; KAFKA=19092; PG=15432
export UPDRAFT_SERVER=http://127.0.0.1:$CONTROL UPDRAFT_TOKEN=$TOKEN
mkdir -p "$OUT"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
wait_ready() { local i=0; until curl -fs -o /dev/null "$1"; do i=$((i+1)); [ $i -gt 3000 ] && { log "not ready: $1"; return 1; }; sleep 0.1; done; }
./updraft --help >/dev/null 2>&1 || true   # builds the launcher first if it is stale
# PIN=1: the measured edge alone on CPU 1, everything else (dev stack, generator) on CPU 0, so that the edge's
# first seconds are not the other processes' (its JVM then sees one CPU: one event loop, one compiler thread each)
pin_other=(); pin_edge=()
if [ "${PIN:-0}" = 1 ]; then pin_other=(taskset -c 0); pin_edge=(taskset -c 1); fi

data=$(mktemp -d /tmp/updraft-cold-XXXX); work=$(mktemp -d /tmp/updraft-cold-out-XXXX)
log "starting updraft dev (data $data)"
${pin_other[@]+"${pin_other[@]}"} ./updraft dev --data-dir "$data" --control-port $CONTROL --edge-port $DEV_EDGE --kafka-port $KAFKA --postgres-port $PG --admin-token $TOKEN > "$work/dev.log" 2>&1 &
dev=$!
edge=
trap 'kill $dev $edge 2>/dev/null || true' EXIT
wait_ready http://127.0.0.1:$DEV_EDGE/readyz
./updraft keys generate --out "$work/keys" >/dev/null
./updraft apps create demo --certificate "$work/keys/certificate.pem" --private-key "$work/keys/private-key.pem" >/dev/null
./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist fixtures/expo-export-sdk57/update-1 --no-progress --json >/dev/null 2>&1
sleep 5
# the check-in pipeline of a fleet is never cold (other edges feed it): warm Kafka, the ingester and PostgreSQL
# through the dev stack's own edge first, in rounds of 20 s until the dev stack's JIT is quiet, so that the
# measured edge is the only cold process (load/bench/pipeline-warmup.sh; PIPELINE_WARMUP_ROUNDS=0 skips it; a
# fixed 30 s, as before 2026-12-02, left the dev stack compiling at 0.3-1 of a core for two more minutes)
if [ "${PIPELINE_WARMUP_ROUNDS:-12}" != 0 ]; then
  RATE=$RATE ROUNDS=${PIPELINE_WARMUP_ROUNDS:-12} ${pin_other[@]+"${pin_other[@]}"} \
    load/bench/pipeline-warmup.sh "$dev" http://127.0.0.1:$DEV_EDGE "$work/pipeline-warmup"
  sleep 5
fi

for mode in ${MODES:-default no-warmup no-checkins}; do
  extra=(); gen_extra=()
  [ "$mode" = no-warmup ] && extra=(--warmup-requests 0)
  [ "$mode" = no-checkins ] && extra=(--checkins false)
  # the bounds before the warm-up waited for the hot path's C2 code (2026-12-02): at most 20,000 requests in 10 s
  [ "$mode" = bounds-20k ] && extra=(--warmup-requests 20000 --warmup-timeout 10s)
  [ "$mode" = gen-warmup-on-target ] && gen_extra=(--warmup-on target)
  # an experiment of 2026-12-02 (cold-start.md, runs 9 and 10): the JIT's thresholds at a quarter
  mode_java=; [ "$mode" = jit-quarter ] && mode_java="-XX:CompileThresholdScaling=0.25"
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg)
  t0=$(date +%s%N)
  UPDRAFT_JAVA_OPTS="-Xmx1g -XX:+UseParallelGC $mode_java ${EDGE_JAVA_OPTS:-}" ${pin_edge[@]+"${pin_edge[@]}"} ./updraft edge --kafka-bootstrap 127.0.0.1:$KAFKA --edge-port $EDGE --edge-id "cold-$mode" "${extra[@]}" \
    > "$work/edge-$mode.log" 2>&1 &
  edge=$!
  wait_ready http://127.0.0.1:$EDGE/readyz
  ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  log "$mode: edge ready in $ready_ms ms (process start to /readyz 200); constant run at $RATE req/s; load average before $load_avg"
  set +e
  ${pin_other[@]+"${pin_other[@]}"} ./updraft load run --name "$PREFIX-$mode" --profile constant --rate "$RATE" --duration 40s --warmup 20000 "${gen_extra[@]}" \
    --target http://127.0.0.1:$EDGE --app demo --channels production --runtime-versions 1.0.0 \
    --signature --verify-certificate "$work/keys/certificate.pem" --out-dir "$work" \
    --metrics edge=http://127.0.0.1:$EDGE/metrics --pids "edge=$edge,dev=$dev,postgres=$(head -n1 "$data/postgres/postmaster.pid")" > "$work/run-$mode.out" 2>&1
  status=$?
  set -e
  ts="$work/$PREFIX-$mode-timeseries.csv"
  worst=$(awk -F, '$2=="generator" && $3=="latency_p99_ms" && $1>=0 {if ($5>m) {m=$5; t=$1}} END {printf "%.2f ms at t=%s s", m, t}' "$ts")
  first=$(awk -F, '$2=="generator" && $3=="latency_p99_ms" && $1>=0 {print $5; exit}' "$ts")
  # the issue's restart target: the first 5 s at p99 <= 2x the steady p99 (here: the median one-second p99 of t = 20-39 s)
  first5=$(awk -F, '$2=="generator" && $3=="latency_p99_ms" && $1>=0 && $1<5 {if ($5>m) m=$5} END {printf "%.2f", m}' "$ts")
  steady=$(awk -F, '$2=="generator" && $3=="latency_p99_ms" && $1>=20 && $1<40 {print $5}' "$ts" | sort -g | awk '{a[NR]=$1} END {printf "%.2f", NR ? a[int((NR+1)/2)] : -1}')
  warm=$(grep -o "warm-up: [0-9]* requests[^(]*" "$work/edge-$mode.log" | head -n 1 || true)
  hot=$(grep -o "hot path .*" "$work/edge-$mode.log" | head -n 1 || true)
  line="$mode: exit $status; edge start to ready $ready_ms ms ($warm; $hot); worst one-second p99 $worst; first second's p99 $first ms; worst p99 of the first 5 s $first5 ms against a steady p99 of $steady ms (t = 20-39 s); load average before $load_avg"
  log "$line"
  cp "$work/$PREFIX-$mode-summary.json" "$OUT/"
  { head -n 1 "$ts"; awk -F, 'NR > 1 && $1 >= 0 && $1 < 10' "$ts"; } > "$OUT/$PREFIX-$mode-first-10s.csv"
  { echo "$line"; grep -i "warm-up" "$work/run-$mode.out" || true; tail -n 6 "$work/run-$mode.out"; grep -i "warm-up" "$work/edge-$mode.log" || true; } \
    > "$OUT/$PREFIX-$mode.txt"
  kill $edge; wait $edge 2>/dev/null || true
  edge=
done
kill $dev; wait $dev 2>/dev/null || true
trap - EXIT
rm -rf "$data"
log "done: $OUT"
