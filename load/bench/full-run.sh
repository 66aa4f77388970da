#!/usr/bin/env bash
# The benchmark of docs/benchmarks/load-*.md, end to end on one machine, everything local:
# `updraft dev` (Kafka, PostgreSQL, control plane, telemetry ingester) + one (or two) edge processes
# under test + the load generator. Writes result files under $OUT and prints CPU seconds per process
# tree for each step. Usage:
#   load/bench/full-run.sh [step...]      steps: setup smoke xprem knee ablations restart scale
#                                         (default: setup xprem knee ablations restart scale)
# Durations: the pipeline warm-up up to ~6 min (once per dev stack); xprem ~17 min; each knee ~5 min (the first one
# twice, with its baseline); about 55 min in all.
# Environment: OUT (result dir), DATA (data dir), KEEP=1 (leave the stack running at the end),
# PIPELINE_WARMUP_ROUNDS (12; 0: none) and PIPELINE_WARMUP_RATE (2000) for the pipeline warm-up before xprem,
# the knee, the ablations and the restart (load/bench/pipeline-warmup.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
STAMP=$(date -u +%Y-%m-%d)
OUT=${OUT:-$ROOT/load/results/$STAMP}
DATA=${DATA:-/tmp/updraft-bench-data}
CONTROL=8080; DEV_EDGE=3000; EDGE=3100; EDGE2=3101; KAFKA=19092; PG=15432
TOKEN=bench-admin-token-0123456789abcdef
SERVER=http://127.0.0.1:$CONTROL
STEPS=${*:-setup xprem knee ablations restart scale}
# the stepped ramp of every knee run (req/s): KNEE_FROM KNEE_TO KNEE_STEP
KNEE="--knee-from ${KNEE_FROM:-1000} --knee-to ${KNEE_TO:-10000} --knee-step ${KNEE_STEP:-1000}"
# untimed warm-up requests before a run that starts at full rate (knee, restart): the first seconds of a
# fresh edge and generator are interpreted code, ~600 req/s; xprem starts at 20 req/s and needs none. Sent to
# the edge (WARMUP_ON=target, as in the 2026-12-01 report) so that the edge is warm too; mirror warms only the
# generator (its default)
WARM="--warmup ${WARMUP:-30000} --warmup-on ${WARMUP_ON:-target}"
mkdir -p "$OUT"
export UPDRAFT_SERVER=$SERVER UPDRAFT_TOKEN=$TOKEN

log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# CPU seconds (user+system) of a process and all its descendants
cpu_tree() {
  local root=$1 ticks=0 pid
  local pids=$(ps -e -o pid=,ppid= | awk -v r="$root" '{p[$1]=$2} END {for (x in p) {y=x; while (y!="" && y!=0) {if (y==r) {print x; break} y=p[y]}}}')
  for pid in $pids; do
    [ -r /proc/$pid/stat ] && ticks=$((ticks + $(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null || echo 0)))
  done
  echo "scale=1; $ticks / $(getconf CLK_TCK)" | bc
}

wait_http() { # url, seconds
  local i=0
  until curl -fs -o /dev/null "$1"; do i=$((i+1)); [ $i -gt $(( $2 * 5 )) ] && { log "timeout waiting for $1"; return 1; }; sleep 0.2; done
}

start_dev() {
  if curl -fs -o /dev/null http://127.0.0.1:$DEV_EDGE/readyz; then log "dev already running"; return; fi
  log "starting updraft dev (data $DATA)"
  UPDRAFT_JAVA_OPTS="-Xmx2g" nohup ./updraft dev --data-dir "$DATA" --control-port $CONTROL --edge-port $DEV_EDGE \
    --kafka-port $KAFKA --postgres-port $PG --admin-token $TOKEN > "$OUT/dev.log" 2>&1 &
  echo $! > "$OUT/dev.pid"
  wait_http http://127.0.0.1:$DEV_EDGE/readyz 300
}

start_edge() { # port id [extra flags...]
  local port=$1 id=$2; shift 2
  UPDRAFT_JAVA_OPTS="-Xmx1g -XX:+UseParallelGC" nohup ./updraft edge --kafka-bootstrap 127.0.0.1:$KAFKA --edge-port $port --edge-id $id "$@" \
    > "$OUT/edge-$id.log" 2>&1 &
  echo $! > "$OUT/edge-$id.pid"
  wait_http http://127.0.0.1:$port/readyz 120
  log "edge $id ready on $port (pid $(cat "$OUT/edge-$id.pid"))"
}

stop_pidfile() {
  [ -f "$1" ] || return 0
  local pid=$(cat "$1")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$1"
}

pg_pid() { head -n1 "$DATA/postgres/postmaster.pid"; }

# the check-in pipeline of a fleet is never cold: a fresh dev stack is warmed once before a measured run
# (load/bench/pipeline-warmup.sh; PIPELINE_WARMUP_ROUNDS=0 skips it)
warm_pipeline() {
  local dev=$(cat "$OUT/dev.pid")
  [ "${PIPELINE_WARMUP_ROUNDS:-12}" = 0 ] || [ -f "$OUT/pipeline-warm.$dev" ] && return 0
  RATE=${PIPELINE_WARMUP_RATE:-2000} ROUNDS=${PIPELINE_WARMUP_ROUNDS:-12} \
    load/bench/pipeline-warmup.sh "$dev" http://127.0.0.1:$DEV_EDGE "$OUT/pipeline-warmup"
  touch "$OUT/pipeline-warm.$dev"
}

cpu_report() { # label, then "name pid" pairs
  local label=$1; shift
  echo "== CPU seconds, $label" >> "$OUT/cpu.txt"
  while [ $# -gt 1 ]; do echo "$1 $(cpu_tree "$2")" >> "$OUT/cpu.txt"; shift 2; done
}

setup() {
  start_dev
  ./updraft apps show demo >/dev/null 2>&1 && { log "app demo exists"; return; }
  ./updraft keys generate --out "$OUT/keys" --common-name "Updraft benchmark" >/dev/null
  ./updraft apps create demo --certificate "$OUT/keys/certificate.pem" --private-key "$OUT/keys/private-key.pem" >/dev/null
  ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist "$ROOT/fixtures/expo-export-sdk57/update-1" --message "bench update 1" --json > "$OUT/group1.json"
  ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist "$ROOT/fixtures/expo-export-sdk57/update-2" --message "bench update 2" --json > "$OUT/group2.json"
  log "published $(jq -r .groupId "$OUT/group1.json") and $(jq -r .groupId "$OUT/group2.json")"
}

# the push storm's trigger: republish group 1 (new ids, newer createdAt): every device turns outdated
trigger_args() {
  local g1=$(jq -r .groupId "$OUT/group1.json")
  echo "--trigger-url $SERVER/v1/apps/demo/rollbacks --trigger-method POST --trigger-token $TOKEN --trigger-body {\"branch\":\"production\",\"runtimeVersion\":\"1.0.0\",\"toGroupId\":\"$g1\"}"
}

common_args() { # target(s)
  echo "--target $1 --app demo --channels production --runtime-versions 1.0.0 --signature --verify-certificate $OUT/keys/certificate.pem --out-dir $OUT --metrics edge=$2/metrics,control=$SERVER/metrics"
}

run_load() { # name, args...
  local name=$1; shift
  local dev=$(cat "$OUT/dev.pid") edge=$(cat "$OUT/edge-bench.pid") pg=$(pg_pid)
  local before="dev=$(cpu_tree $dev) edge=$(cpu_tree $edge) pg=$(cpu_tree $pg)"
  log "run $name: updraft load run $*"
  set +e
  ./updraft load run --name "$name" --pids "edge=$edge,dev=$dev,postgres=$pg" "$@" > "$OUT/$name.out" 2>&1
  local status=$?
  set -e
  echo "$name exit=$status before: $before after: dev=$(cpu_tree $dev) edge=$(cpu_tree $edge) pg=$(cpu_tree $pg)" >> "$OUT/cpu.txt"
  log "run $name: exit $status"
  tail -n 5 "$OUT/$name.out" >&2
}

smoke() {
  start_edge $EDGE bench
  run_load smoke $(common_args http://127.0.0.1:$EDGE http://127.0.0.1:$EDGE) --profile smoke $(trigger_args)
  stop_pidfile "$OUT/edge-bench.pid"
}

xprem() {
  start_edge $EDGE bench
  run_load xprem $(common_args http://127.0.0.1:$EDGE http://127.0.0.1:$EDGE) --profile xprem $(trigger_args)
  stop_pidfile "$OUT/edge-bench.pid"
}

knee() {
  start_edge $EDGE bench
  run_load knee $(common_args http://127.0.0.1:$EDGE http://127.0.0.1:$EDGE) --profile knee $KNEE $WARM --baseline
  stop_pidfile "$OUT/edge-bench.pid"
}

ablations() {
  start_edge $EDGE bench --checkins false
  run_load knee-checkins-off $(common_args http://127.0.0.1:$EDGE http://127.0.0.1:$EDGE) --profile knee $KNEE $WARM
  stop_pidfile "$OUT/edge-bench.pid"
  start_edge $EDGE bench
  run_load knee-no-signature --target http://127.0.0.1:$EDGE --app demo --channels production --out-dir "$OUT" --metrics edge=http://127.0.0.1:$EDGE/metrics --profile knee $KNEE $WARM
  start_edge $EDGE2 bench2
  run_load knee-two-edges $(common_args http://127.0.0.1:$EDGE,http://127.0.0.1:$EDGE2 http://127.0.0.1:$EDGE) --profile knee $KNEE $WARM
  stop_pidfile "$OUT/edge-bench2.pid"
  stop_pidfile "$OUT/edge-bench.pid"
}

restart() {
  start_edge $EDGE bench
  start_edge $EDGE2 bench2
  ( sleep 30; log "killing edge bench2 (SIGKILL)"; kill -9 "$(cat "$OUT/edge-bench2.pid")"; sleep 5;
    log "restarting edge bench2"; start_edge $EDGE2 bench2 ) &
  local killer=$!
  run_load restart-under-load $(common_args http://127.0.0.1:$EDGE,http://127.0.0.1:$EDGE2 http://127.0.0.1:$EDGE) --profile constant --rate 2000 --duration 90s $WARM
  wait $killer || true
  stop_pidfile "$OUT/edge-bench2.pid"
  stop_pidfile "$OUT/edge-bench.pid"
}

scale() {
  # cost of scale: a generated log of 1,000 apps x 3 channels x 3 runtime versions x 2 updates
  local prefix=scale.
  if [ ! -f "$OUT/scale-events.done" ]; then
    ./updraft load events --apps 1000 --channels 3 --runtime-versions 3 --updates 2 --kafka-bootstrap 127.0.0.1:$KAFKA --topic-prefix $prefix > "$OUT/scale-events.out" 2>&1
    touch "$OUT/scale-events.done"
  fi
  for n in 1 2; do
    local t0=$(date +%s%N)
    UPDRAFT_JAVA_OPTS="-Xmx2g -XX:+UseParallelGC" nohup ./updraft edge --kafka-bootstrap 127.0.0.1:$KAFKA --topic-prefix $prefix --edge-port 3200 --edge-id scale --checkins false > "$OUT/edge-scale.log" 2>&1 &
    local pid=$!
    wait_http http://127.0.0.1:3200/readyz 600
    local t1=$(date +%s%N)
    sleep 2
    jcmd $pid GC.run >/dev/null 2>&1 || true
    sleep 1
    # young + old generations (ParallelGC); Metaspace and class space are not the image
    local heap=$(jcmd $pid GC.heap_info 2>/dev/null | grep -E 'PSYoungGen|ParOldGen' | grep -Eo 'used [0-9]+K' | grep -Eo '[0-9]+' | paste -sd+ | bc)
    local rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
    local image=$(curl -s http://127.0.0.1:3200/metrics | grep -E '^updraft_edge_image_(apps|groups|bytes) ' | tr '\n' ' ')
    echo "scale run $n: ready_ms=$(( (t1 - t0) / 1000000 )) heap_used_after_gc_kb=$heap rss_kb=$rss $image" | tee -a "$OUT/scale.txt" >&2
    kill $pid; wait $pid 2>/dev/null || true
  done
}

for step in $STEPS; do
  case $step in
    setup) setup ;;
    smoke|scale) setup; $step ;;
    xprem|knee|ablations|restart) setup; warm_pipeline; $step ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
[ "${KEEP:-0}" = 1 ] || stop_pidfile "$OUT/dev.pid"
log "results in $OUT"
