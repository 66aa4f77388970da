#!/usr/bin/env bash
# The benchmark of docs/benchmarks/load-*.md, end to end on one machine, everything local:
# `updraft dev` (Kafka, PostgreSQL, control plane, telemetry ingester) + one (or two) edge processes
# under test + the load generator. Writes result files under $OUT and prints CPU seconds per process
# tree for each step. Usage:
#   load/bench/full-run.sh [step...]      steps: setup smoke xprem knee ablations restart scale saturation
#                                         (saturation-summary: its summary JSON again from $OUT/saturation.txt)
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
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"

# CPU seconds (user+system) of a process and all its descendants, and of the children it has reaped
cpu_tree() {
  local root=$1 ticks=0 pid
  local pids=$(ps -e -o pid=,ppid= | awk -v r="$root" '{p[$1]=$2} END {for (x in p) {y=x; while (y!="" && y!=0) {if (y==r) {print x; break} y=p[y]}}}')
  for pid in $pids; do
    # the root also with its reaped children (cutime, cstime): PostgreSQL's autovacuum workers exit after each table
    if [ "$pid" = "$root" ]; then
      [ -r /proc/$pid/stat ] && ticks=$((ticks + $(awk '{print $14+$15+$16+$17}' /proc/$pid/stat 2>/dev/null || echo 0)))
    else
      [ -r /proc/$pid/stat ] && ticks=$((ticks + $(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null || echo 0)))
    fi
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

# Saturation on the full stack (issue 19's "edge cost"): wrk (1 thread, SAT_CONNECTIONS=128 connections,
# SAT_SECONDS=10 s per round) against the edge, with check-ins on into the dev stack's Kafka, ingester and
# PostgreSQL, and against the baseline server serving the edge's captured bytes, alternating which goes first,
# SAT_ROUNDS=4 rounds. Every request is an outdated iOS device that gets the signed manifest, its eas-client-id
# drawn at random from a fleet of SAT_DEVICES=500000 (the ingest benchmark's; the warm-up rounds register about half of
# them, so the measured rounds update known devices more and more); 0 sends a new device with every request (every
# check-in inserts a device row and a receipt), 1 is wrk's usual single device. Before each round the pipeline is left to catch up with what
# the previous edge round sent (dev stack and PostgreSQL together under 0.15 core for 2 s; at most SAT_QUIET_MAX=300 s), so that neither
# server runs beside the other's leftovers; what a round leaves is counted as the pipeline's catch-up CPU.
saturation() {
  command -v wrk >/dev/null || { echo "saturation needs wrk: apt-get install -y wrk" >&2; exit 2; }
  start_edge $EDGE bench
  local base_port=3300 rounds=${SAT_ROUNDS:-4} secs=${SAT_SECONDS:-10} conns=${SAT_CONNECTIONS:-128} devices=${SAT_DEVICES:-500000}
  export WRK_PREFIX=wrk-$(date +%s)-
  # the edge's answers for the baseline: a short run with --baseline writes them to $OUT/capture-capture.json
  run_load capture $(common_args http://127.0.0.1:$EDGE http://127.0.0.1:$EDGE) --profile smoke --baseline --baseline-profile smoke
  local update=$(jq -r '.entries[] | select(.platform=="ios") | .update_id' "$OUT/capture-capture.json" | head -n1)
  [ -n "$update" ] && [ "$update" != null ] || { log "no iOS entry in $OUT/capture-capture.json"; exit 1; }
  nohup ./updraft load baseline --port $base_port --capture "$OUT/capture-capture.json" --event-loops 2 > "$OUT/saturation-baseline.log" 2>&1 &
  echo $! > "$OUT/baseline.pid"
  wait_http http://127.0.0.1:$base_port/readyz 60
  cat > "$OUT/saturation.lua" <<'LUA'
-- an outdated iOS device per request: a new eas-client-id each time (WRK_DEVICES=0) or one of WRK_DEVICES drawn
-- at random (the same ids in every round of a run: WRK_PREFIX)
local devices = tonumber(os.getenv("WRK_DEVICES") or "0")
local prefix = os.getenv("WRK_PREFIX") or "wrk-"
local n = 0
math.randomseed(os.time())
request = function()
  n = n + 1
  local id = devices > 0 and math.random(devices) or (tostring(os.time()) .. "-" .. n)
  wrk.headers["eas-client-id"] = prefix .. id
  return wrk.format()
end
LUA
  local H=(-H "accept: multipart/mixed,application/expo+json,application/json" -H "expo-platform: ios"
    -H "expo-protocol-version: 1" -H "expo-runtime-version: 1.0.0" -H "expo-channel-name: production"
    -H "expo-current-update-id: 00000000-0000-4000-8000-000000000001" -H "expo-embedded-update-id: 00000000-0000-4000-8000-000000000001"
    -H 'expo-expect-signature: sig, keyid="main", alg="rsa-v1_5-sha256"')
  local edge=$(cat "$OUT/edge-bench.pid") dev=$(cat "$OUT/dev.pid") base=$(cat "$OUT/baseline.pid") pg=$(pg_pid)
  # the pipeline: the dev stack's JVM (Kafka, ingester, control plane) and PostgreSQL, which pg_ctl started
  # outside the JVM's process tree
  pipeline_cpu() { echo "$(cpu_tree $dev) + $(cpu_tree $pg)" | bc; }
  # waits until the pipeline uses under 0.15 of a core for 2 s (at most SAT_QUIET_MAX s); says how long and what it spent
  wait_quiet() {
    local t0=$(date +%s) c0=$(pipeline_cpu) quiet=0 a b
    while [ $(( $(date +%s) - t0 )) -lt ${SAT_QUIET_MAX:-300} ]; do
      a=$(pipeline_cpu); sleep 2; b=$(pipeline_cpu)
      if [ "$(echo "$b - $a < 0.3" | bc)" = 1 ]; then quiet=1; break; fi
    done
    echo "waited $(( $(date +%s) - t0 )) s for a quiet pipeline (quiet=$quiet), pipeline CPU meanwhile $(echo "$(pipeline_cpu) - $c0" | bc) s"
  }
  # both servers' code warm (unrecorded): 2 rounds each
  for url in http://127.0.0.1:$EDGE/apps/demo/manifest http://127.0.0.1:$base_port/apps/demo/manifest; do
    WRK_DEVICES=$devices wrk -t1 -c$conns -d${secs}s -s "$OUT/saturation.lua" "${H[@]}" "$url" > /dev/null
    WRK_DEVICES=$devices wrk -t1 -c$conns -d${secs}s -s "$OUT/saturation.lua" "${H[@]}" "$url" > /dev/null
  done
  : > "$OUT/saturation.txt"
  local r order target url dropped0 dropped1
  for r in $(seq 1 $rounds); do
    if [ $((r % 2)) = 1 ]; then order="edge baseline"; else order="baseline edge"; fi
    for target in $order; do
      # the pipeline catches up with the last edge round first; its CPU meanwhile is that round's catch-up
      echo "round $r $target: $(wait_quiet)" >> "$OUT/saturation.txt"
      if [ $target = edge ]; then url=http://127.0.0.1:$EDGE/apps/demo/manifest; else url=http://127.0.0.1:$base_port/apps/demo/manifest; fi
      dropped0=$(curl -s http://127.0.0.1:$EDGE/metrics | awk '/^updraft_edge_checkins_dropped_total/ {s+=$2} END {print s+0}')
      local ce0=$(cpu_tree $edge) cd0=$(cpu_tree $dev) cp0=$(cpu_tree $pg) cb0=$(cpu_tree $base)
      WRK_DEVICES=$devices wrk -t1 -c$conns -d${secs}s --latency -s "$OUT/saturation.lua" "${H[@]}" "$url" > "$OUT/saturation-$r-$target.wrk"
      local ce1=$(cpu_tree $edge) cd1=$(cpu_tree $dev) cp1=$(cpu_tree $pg) cb1=$(cpu_tree $base)
      dropped1=$(curl -s http://127.0.0.1:$EDGE/metrics | awk '/^updraft_edge_checkins_dropped_total/ {s+=$2} END {print s+0}')
      local rps=$(awk '/^Requests\/sec/ {print $2}' "$OUT/saturation-$r-$target.wrk")
      local p99=$(awk '$1=="99%" {print $2}' "$OUT/saturation-$r-$target.wrk")
      local non2xx=$(awk '/Non-2xx/ {print $NF}' "$OUT/saturation-$r-$target.wrk")
      echo "round $r $target: req/s=$rps p99=$p99 non2xx=${non2xx:-0} cpu_s edge=$(echo "$ce1 - $ce0" | bc) dev_stack=$(echo "$cd1 - $cd0" | bc) postgres=$(echo "$cp1 - $cp0" | bc) baseline=$(echo "$cb1 - $cb0" | bc) checkins_dropped=$(echo "$dropped1 - $dropped0" | bc)" >> "$OUT/saturation.txt"
      log "saturation round $r $target: $rps req/s, p99 $p99"
    done
  done
  # the last edge round's catch-up
  echo "after the last round: $(wait_quiet)" >> "$OUT/saturation.txt"
  echo "load average at end: $(cat /proc/loadavg)" >> "$OUT/saturation.txt"
  stop_pidfile "$OUT/baseline.pid"
  stop_pidfile "$OUT/edge-bench.pid"
  saturation_summary > "$OUT/saturation-summary.json"
  cat "$OUT/saturation.txt" >&2
  jq -c '{ratio_median, ratio_per_round}' "$OUT/saturation-summary.json" >&2
}

# saturation.txt as JSON: rounds, edge/baseline ratio per round and its median
saturation_summary() {
  awk -v secs=${SAT_SECONDS:-10} -v conns=${SAT_CONNECTIONS:-128} -v devices=${SAT_DEVICES:-500000} '
    /^load average at end: / { load=substr($0, 22) }
    / req\/s=/ { split($0, f, " "); r=f[2]; t=substr(f[3], 1, length(f[3])-1)
      for (i=4; i<=NF; i++) { split($i, kv, "="); v[r, t, kv[1]]=kv[2] } rounds[r]=1 }
    / waited / { match($0, /pipeline CPU meanwhile [0-9.]+/); w=substr($0, RSTART+23, RLENGTH-23); split($0, f, " ")
      if (f[1]=="round") catchup[f[2], substr(f[3], 1, length(f[3])-1)]=w; else last=w }
    END {
      printf "{\"benchmark\":\"saturation-full-stack\",\"tool\":\"wrk -t1 -c%s -d%ss\",\"devices\":%s,\"load_average_at_end\":\"%s\",\"rounds\":[", conns, secs, devices, load
      n=0; for (r in rounds) n++
      for (r=1; r<=n; r++) {
        ratio[r]=v[r,"edge","req/s"]/v[r,"baseline","req/s"]
        printf "%s{\"round\":%d,\"edge_rps\":%s,\"baseline_rps\":%s,\"ratio\":%.4f,\"edge_p99\":\"%s\",\"baseline_p99\":\"%s\",\"edge_cpu_s\":%s,\"dev_stack_cpu_s_during_edge\":%s,\"postgres_cpu_s_during_edge\":%s,\"dev_stack_cpu_s_during_baseline\":%s,\"postgres_cpu_s_during_baseline\":%s,\"baseline_cpu_s\":%s,\"checkins_dropped\":%s,\"non2xx_edge\":%s,\"non2xx_baseline\":%s}", (r>1?",":""), r,
          v[r,"edge","req/s"]+0, v[r,"baseline","req/s"]+0, ratio[r], v[r,"edge","p99"], v[r,"baseline","p99"], v[r,"edge","edge"]+0,
          v[r,"edge","dev_stack"]+0, v[r,"edge","postgres"]+0, v[r,"baseline","dev_stack"]+0, v[r,"baseline","postgres"]+0, v[r,"baseline","baseline"]+0, v[r,"edge","checkins_dropped"]+0, v[r,"edge","non2xx"]+0, v[r,"baseline","non2xx"]+0
      }
      printf "],\"ratio_per_round\":["; for (r=1; r<=n; r++) printf "%s%.4f", (r>1?",":""), ratio[r]
      # median of the per-round ratios
      for (i=1; i<=n; i++) s[i]=ratio[i]
      for (i=1; i<=n; i++) for (j=i+1; j<=n; j++) if (s[j]<s[i]) { x=s[i]; s[i]=s[j]; s[j]=x }
      med = (n%2) ? s[(n+1)/2] : (s[n/2]+s[n/2+1])/2
      printf "],\"ratio_median\":%.4f,\"pipeline_catch_up_cpu_s\":{", med
      k=0; for (key in catchup) { split(key, kk, SUBSEP); printf "%s\"round %s before %s\":%s", (k++?",":""), kk[1], kk[2], catchup[key]+0 }
      printf "%s\"after the last round\":%s}}\n", (k?",":""), last+0
    }' "$OUT/saturation.txt"
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
    saturation-summary) saturation_summary > "$OUT/saturation-summary.json" ;;  # again, from $OUT/saturation.txt
    xprem|knee|ablations|restart|saturation) setup; warm_pipeline; $step ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
[ "${KEEP:-0}" = 1 ] || stop_pidfile "$OUT/dev.pid"
log "results in $OUT"
