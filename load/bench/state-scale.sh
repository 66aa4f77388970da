#!/usr/bin/env bash
# State at scale (issue "state that grows with what is live"): generate a log of PUBLISHES historical
# publishes over APPS apps straight into Kafka, let the control plane snapshot it, then measure
#   - edge: start-to-ready (process start until /readyz 200), its start phases (/readyz startMillis), heap after
#     a full GC, what /readyz reports
#   - control plane: start-to-accepting-writes (process start until /healthz 200), heap after a full GC
# and write a summary JSON. Runs `./updraft dev` for Kafka, PostgreSQL and the writing control plane, and
# starts the measured edge and control plane as separate JVMs against its Kafka.
# Usage: load/bench/state-scale.sh [PUBLISHES=10000] [OUT=target/state-scale-<PUBLISHES>.json]
# Environment: APPS (100), ROLLOUT_EVERY (20), HEAP (-Xmx for the measured JVMs, 2g), EDGE_STARTS (3: the edge is
# started that many times one after another and its median start-to-ready reported, each one in the summary),
# EDGE_FLAGS (extra flags for the measured edge, e.g. "--warmup-until-flat false"), QUIET_LOAD (1.0) and QUIET_WAIT (1800 s):
# before each measured start the script waits, at most QUIET_WAIT seconds, for the 1-minute load average to fall
# under QUIET_LOAD (the dev stack idles at ~0.3 on 2 cores) and records the load average and the CPU steal time
# of each start in the summary. EDGE_FLAGS_B: when set, the starts alternate between EDGE_FLAGS and EDGE_FLAGS_B
# (an A/B in one run, on the same machine state; medians of each in the summary). REUSE_DEV=DIR: measure again on
# the dev data dir of an earlier run (its $WORK/dev, kept after the run) without generating the log again.
# The measured JVMs start through ./updraft, hence from its class-data archive once one exists (see the script):
# a start without one (the first on a new build) is marked in classArchiveEach; startToReadyMillisWithArchive is
# the median of the others. UPDRAFT_CDS=0 measures without.
# Not for a shared machine: the figures are only meaningful on a quiet one.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PUBLISHES=${1:-10000}
OUT=${2:-target/state-scale-$PUBLISHES.json}
APPS=${APPS:-100}
ROLLOUT_EVERY=${ROLLOUT_EVERY:-20}
HEAP=${HEAP:-2g}
EDGE_STARTS=${EDGE_STARTS:-3}
EDGE_FLAGS=${EDGE_FLAGS:-}
EDGE_FLAGS_B=${EDGE_FLAGS_B-}
REUSE_DEV=${REUSE_DEV:-}
QUIET_LOAD=${QUIET_LOAD:-1.0}
QUIET_WAIT=${QUIET_WAIT:-1800}
TOKEN=state-scale-bench-token-0123456789
KAFKA=19092; CONTROL=18080; EDGE=13000; EDGE2=13001; CONTROL2=18081
WORK=$(mktemp -d /tmp/updraft-state-scale.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
mkdir -p "$(dirname "$OUT")"
. "$ROOT/load/bench/tree.sh"; measured_tree
./updraft --help >/dev/null 2>&1 || true   # builds the launcher first if it is stale, outside the clock

wait_for() { # url seconds -> ms waited from $2 (epoch ns)
  local url=$1 t0=$2 i=0
  until curl -fs -o /dev/null "$url"; do
    i=$((i+1)); [ $i -gt 12000 ] && { echo "no answer from $url after 20 min; logs in $WORK" >&2; exit 1; }
    sleep 0.1
  done
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
heap_after_gc() { # pid -> used heap bytes after a full GC
  jcmd "$1" GC.run >/dev/null
  jcmd "$1" GC.heap_info | awk '/used/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?$/, "", v); print v * 1024; exit } }'
}
load1() { cut -d' ' -f1 /proc/loadavg; }
wait_quiet() { # waits (at most QUIET_WAIT s) for the 1-minute load average to fall under QUIET_LOAD
  local waited=0
  until awk -v l="$(load1)" -v q="$QUIET_LOAD" 'BEGIN { exit !(l < q) }'; do
    [ $waited -ge "$QUIET_WAIT" ] && { echo "  load average still $(load1) after ${waited}s: measuring anyway (see loadAverage in the summary)"; return; }
    [ $((waited % 60)) = 0 ] && echo "  waiting for a quiet machine: load average $(load1) (want < $QUIET_LOAD)"
    sleep 5; waited=$((waited + 5))
  done
}
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9 }' /proc/stat; } # total, steal
steal_since() { # "total steal" from cpu_ticks -> steal in % of the CPU time since
  local now; now=$(cpu_ticks)
  awk -v a="$1" -v b="$now" 'BEGIN { split(a, x, " "); split(b, y, " "); t = y[1] - x[1]; printf "%.1f", (t > 0 ? 100 * (y[2] - x[2]) / t : 0) }'
}
metric() { curl -fs "$1/metrics" | awk -v n="$2" '$1 == n || index($1, n "{") == 1 { s += $2 } END { printf "%d", s }'; }

DEV_DIR=${REUSE_DEV:-$WORK/dev}
start_dev() { # the dev stack on $DEV_DIR (its Kafka keeps its data there)
  ./updraft dev --data-dir "$DEV_DIR" --kafka-port $KAFKA --control-port $CONTROL --edge-port $EDGE --admin-token $TOKEN \
    --snapshot-interval 5s >> "$WORK/dev.log" 2>&1 &
  DEV=$!; PIDS+=($DEV)
  wait_for http://127.0.0.1:$EDGE/readyz "$(date +%s%N)" >/dev/null
}
if [ -n "$REUSE_DEV" ]; then
  echo "dev stack (Kafka on $KAFKA) on the kept data dir $REUSE_DEV: no log generated"
  start_dev
  generate_ms=null
else
echo "dev stack (Kafka on $KAFKA) in $WORK: creates the topics"
start_dev

echo "generating $PUBLISHES publishes over $APPS apps"
t0=$(date +%s%N)
./updraft load events --kafka-bootstrap 127.0.0.1:$KAFKA --apps "$APPS" --publishes "$PUBLISHES" --rollout-every "$ROLLOUT_EVERY" \
  --signing-key true | tee "$WORK/generate.log"
generate_ms=$(( ($(date +%s%N) - t0) / 1000000 ))

# the writer only reads the log at start: restart it so that it folds the history, then snapshots every app
echo "restarting the dev stack: its control plane folds the history and snapshots every app"
kill $DEV; wait $DEV 2>/dev/null || true
start_dev
until [ "$(metric http://127.0.0.1:$CONTROL updraft_control_snapshots_written_total)" -ge "$APPS" ]; do sleep 1; done
fi
# the dev stack's ingester projects the whole history into PostgreSQL (the audit): let it finish first, or its
# work competes with the measured JVMs for the cores
ingester_port=$(grep -o 'metricsPort=[0-9]*' "$WORK/dev.log" | tail -n1 | cut -d= -f2)
waited=0
until [ "$(metric "http://127.0.0.1:$ingester_port" updraft_history_lag_records)" = 0 ] \
    && { [ -n "$REUSE_DEV" ] || [ "$(metric "http://127.0.0.1:$ingester_port" updraft_history_events_total)" -gt 0 ]; }; do
  sleep 5; waited=$((waited + 5))
  [ $((waited % 60)) = 0 ] && echo "  history projection still behind after ${waited}s: $(metric "http://127.0.0.1:$ingester_port" updraft_history_lag_records) events"
  [ $waited -gt 3600 ] && { echo "history projection not caught up after 1 h; logs in $WORK" >&2; exit 1; }
done
echo "history projection caught up (waited ${waited}s)"
sleep 2

# the edge is started EDGE_STARTS times, one after another (each a fresh JVM): its start-to-ready is the median
edge_times=(); edge_archive_each=(); times_archive=(); edge_phase_list=(); edge_loads=(); edge_steals=(); edge_warmups=(); edge_flags_each=(); times_a=(); times_b=()
for run in $(seq 1 "$EDGE_STARTS"); do
  wait_quiet
  edge_loads+=("$(load1)")
  flags=$EDGE_FLAGS; ab=A
  if [ -n "$EDGE_FLAGS_B" ] && [ $((run % 2)) = 0 ]; then flags=$EDGE_FLAGS_B; ab=B; fi
  edge_flags_each+=("\"$flags\"")
  echo "edge: start to ready ($run of $EDGE_STARTS, flags $ab: '$flags'), load average $(load1)"
  ticks=$(cpu_ticks)
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  UPDRAFT_JAVA_OPTS="-Xmx$HEAP" ./updraft edge --kafka-bootstrap 127.0.0.1:$KAFKA --edge-port $EDGE2 --bind 127.0.0.1 --checkins false \
    --edge-id bench $flags > "$WORK/edge-$run.log" 2>&1 &
  edge_pid=$!; PIDS+=($edge_pid)
  edge_times+=("$(wait_for http://127.0.0.1:$EDGE2/readyz "$t0")")
  if [ $ab = A ]; then times_a+=("${edge_times[-1]}"); else times_b+=("${edge_times[-1]}"); fi
  # the launcher script starts servers from a class-data archive once one exists (it writes one when a server
  # that ran without it stops): the first start on a new build runs without
  if grep -q "no class-data archive" "$WORK/edge-$run.log"; then edge_archive_each+=(false); else
    edge_archive_each+=(true); times_archive+=("${edge_times[-1]}"); fi
  readyz=$(curl -fs http://127.0.0.1:$EDGE2/readyz)
  # where the edge's start went (jvm, kafkaConnect, snapshotRead, snapshotDecode, imageBuild, tailReplay, warmup, total)
  edge_phase_list+=("$(echo "$readyz" | grep -o '"startMillis":{[^}]*}' | sed 's/"startMillis"://' || echo null)")
  edge_steals+=("$(steal_since "$ticks")")
  sleep 1 # the warm-up's log line follows /readyz by a few milliseconds
  warm_line=$(grep -o 'warm-up: [0-9]* requests over.*' "$WORK/edge-$run.log" | head -n1 || true)
  w=$(echo "$warm_line" | awk '{ print $2 }'); edge_warmups+=("${w:-null}")
  echo "  $warm_line"
  if [ "$run" -eq "$EDGE_STARTS" ]; then edge_heap=$(heap_after_gc $edge_pid); fi
  kill $edge_pid; wait $edge_pid 2>/dev/null || true
  echo "  ready in ${edge_times[-1]} ms (steal ${edge_steals[-1]} %, class-data archive ${edge_archive_each[-1]}): ${edge_phase_list[-1]}"
done
median_of() { printf '%s\n' "$@" | sort -n | awk 'NF { v[++n] = $1 } END { if (n) print v[int((n + 1) / 2)]; else print "null" }'; }
edge_ready_ms=$(median_of "${edge_times[@]}")
ready_a=$(median_of "${times_a[@]}")
ready_b=$(median_of "${times_b[@]:-}")
ready_archive=$(median_of "${times_archive[@]:-}")
edge_phases=${edge_phase_list[-1]}

wait_quiet
cp_load=$(load1)
echo "control plane: start to accepting writes, load average $cp_load"
t0=$(date +%s%N)
UPDRAFT_JAVA_OPTS="-Xmx$HEAP" ./updraft control-plane --kafka-bootstrap 127.0.0.1:$KAFKA --control-port $CONTROL2 --bind 127.0.0.1 \
  --admin-token $TOKEN --data-dir "$WORK/cp" --transactional-id state-scale-measured > "$WORK/control-plane.log" 2>&1 &
cp_pid=$!; PIDS+=($cp_pid)
cp_ready_ms=$(wait_for http://127.0.0.1:$CONTROL2/healthz "$t0")
if grep -q "no class-data archive" "$WORK/control-plane.log"; then cp_archive=false; else cp_archive=true; fi
cp_heap=$(heap_after_gc $cp_pid)
cp_snapshot_apps=$(metric http://127.0.0.1:$CONTROL2 updraft_control_snapshot_apps)
cp_replayed=$(metric http://127.0.0.1:$CONTROL2 updraft_control_events_replayed)
kill $cp_pid

live_groups=$(echo "$readyz" | sed -E 's/.*"groups":([0-9]+).*/\1/')
cat > "$OUT" <<JSON
{
  "publishes": $PUBLISHES,
  "apps": $APPS,
  "rolloutEvery": $ROLLOUT_EVERY,
  "generateMillis": $generate_ms,
  "edge": {"startToReadyMillis": $edge_ready_ms, "starts": $EDGE_STARTS, "startToReadyMillisEach": [$(IFS=,; echo "${edge_times[*]}")],
           "classArchiveEach": [$(IFS=,; echo "${edge_archive_each[*]}")], "startToReadyMillisWithArchive": $ready_archive,
           "flags": "$EDGE_FLAGS", "flagsB": "$EDGE_FLAGS_B", "flagsEach": [$(IFS=,; echo "${edge_flags_each[*]}")],
           "startToReadyMillisA": $ready_a, "startToReadyMillisB": $ready_b, "startPhasesMillis": ${edge_phases:-null}, "startPhasesMillisEach": [$(IFS=,; echo "${edge_phase_list[*]}")],
           "warmupRequestsEach": [$(IFS=,; echo "${edge_warmups[*]}")], "loadAverageEach": [$(IFS=,; echo "${edge_loads[*]}")], "stealPercentEach": [$(IFS=,; echo "${edge_steals[*]}")], "heapAfterGcBytes": $edge_heap, "liveGroups": $live_groups,
           "heapPerLiveGroupBytes": $(( edge_heap / (live_groups > 0 ? live_groups : 1) )), "readyz": $readyz},
  "controlPlane": {"startToAcceptingWritesMillis": $cp_ready_ms, "classArchive": $cp_archive, "loadAverage": $cp_load, "heapAfterGcBytes": $cp_heap, "snapshotApps": $cp_snapshot_apps,
                   "eventsReplayed": $cp_replayed},
  "machine": {"cores": $(nproc), "java": "$(java -version 2>&1 | head -n1 | sed 's/"/\\"/g')"}
}
JSON
echo "wrote $OUT"
cat "$OUT"
