#!/usr/bin/env bash
# The edge on a core of its own (docs/benchmarks/edge.md, issue 43): the headline runs of the benchmark page.
# `updraft dev` (Kafka, PostgreSQL, control plane, ingester) and the load generator on OTHER_CPUS (taskset), the
# measured edge alone on EDGE_CPU, check-ins on (into the dev stack's Kafka, ingested into PostgreSQL), signatures
# requested and verified by the generator, 100,000 devices. The generator warms its own code on a mirror of the edge's
# answers before each measured run (--warmup-on mirror: the edge gets no warm-up traffic from it) and reports its own
# CPU. Latency is judged twice: by the generator (from each request's planned send time) and by the edge itself (its
# request-time histogram scraped every second: results.server_latency in the summary).
#
# Usage: load/bench/edge-pinned.sh STEP...   steps (each one command of the quiet window; `all` = up xprem cpu restart knee otlp down):
#   up       start the dev stack pinned, create the app, publish two updates, warm the check-in pipeline (~2 min)
#   xprem    xprem's three phases at TIME_SCALE [0.25] of their length (0.25: 4 min 8 s; 1: the full 16.5 min), the
#            push at 10:25 scaled: fills the page's xprem rows (edge-pinned-xprem-summary.json)
#   cpu      CPU_ROUNDS [3] rounds on one pinned edge, each 5,000 req/s (CPU_RATE) for CPU_SECONDS [60] against the
#            edge, then the same against a trivial server started fresh for the round (`load baseline` serving the
#            edge's captured bytes, on the same core); before each measured run CPU_PRERUN [30s] of the same traffic,
#            unmeasured (--server-prerun: both servers' JIT done first). CPU time per request of each and their ratio
#            per round (edge-pinned-cpu-<n>-summary.json: baseline.ratio), the median ratio and the ratio of the
#            medians (edge-pinned-cpu-rounds.json) (~11 min)
#   restart  two edges round-robin at 2,000 req/s for RESTART_SECONDS [90]: the survivor on EDGE2_CPU (with the generator
#            and the dev stack), the restarted one alone on EDGE_CPU; at t = 30 s the
#            second is stopped (SIGTERM) and started again; the generator holds it out of rotation until its /readyz
#            answers 200 (its warm-up done) and probes both every second; per-edge p99 per second from each edge's own
#            histogram (~2.5 min)
#   knee     a stepped ramp against the pinned edge, KNEE_FROM [1000] to KNEE_TO [10000] req/s by KNEE_STEP [1000], 10 s
#            holds: the highest hold with no drops and p99 <= 10 ms (capacity.measured_sustained_rps), which
#            load/bench/pipeline.sh then uses as the edge's knee (~2.5 min)
#   otlp     OTLP_MANIFEST_RATE [2000] req/s for OTLP_SECONDS [45] against the pinned edge (started with
#            --trust-forwarded-for), first alone, then with load/bench/otlp-sender.py posting OTLP_RATE [200] error
#            exports a second (3 exceptions each, one /24 per request) to the same edge's /v1/logs from OTHER_CPUS: the
#            manifest route's p99 with the error route under load (edge-pinned-otlp-{off,on}-summary.json,
#            edge-pinned-otlp-sender.json) (~3 min)
#   down     stop the dev stack
# Every step prints the generator's verdict line with its drop count, and copies the summary JSON and a text line to
# OUT [docs/benchmarks/runs/<UTC date>]. SMOKE=1: short durations, files named *-smoke-* in OUT [/tmp/edge-pinned-smoke]
# (never results). Environment: EDGE_CPU [1], EDGE2_CPU [0], OTHER_CPUS [0], DATA [/tmp/updraft-edge-pinned],
# EDGE_JAVA_OPTS (added to each edge JVM's options), PIPELINE_WARMUP_ROUNDS [3], PORT_OFFSET [0] (added to every port: 18380 control, 13300 dev edge, 13310/13311 edges, 19392
# Kafka, 15532 PostgreSQL).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
SMOKE=${SMOKE:-0}
if [ "$SMOKE" = 1 ]; then OUT=${OUT:-/tmp/edge-pinned-smoke}; TAG=edge-pinned-smoke; else
  OUT=${OUT:-$ROOT/docs/benchmarks/runs/$(date -u +%Y-%m-%d)}; TAG=edge-pinned; fi
DATA=${DATA:-/tmp/updraft-edge-pinned}
WORK=$DATA-work
EDGE_CPU=${EDGE_CPU:-1}; EDGE2_CPU=${EDGE2_CPU:-0}; OTHER_CPUS=${OTHER_CPUS:-0}
P=${PORT_OFFSET:-0} # added to every port below, for a second stack on the same machine
CONTROL=$((18380 + P)); DEV_EDGE=$((13300 + P)); EDGE=$((13310 + P)); EDGE2=$((13311 + P)); KAFKA=$((19392 + P)); PG=$((15532 + P))
TOKEN=bench-admin-token-0123456789abcdef
export UPDRAFT_SERVER=http://127.0.0.1:$CONTROL UPDRAFT_TOKEN=$TOKEN
mkdir -p "$OUT" "$WORK"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
command -v taskset >/dev/null || { echo "edge-pinned.sh needs taskset (util-linux)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "edge-pinned.sh needs 2 CPUs at least" >&2; exit 2; }
other=(taskset -c "$OTHER_CPUS")

wait_http() { # url seconds
  local i=0
  until curl -fs -o /dev/null "$1"; do i=$((i+1)); [ $i -gt $(( $2 * 10 )) ] && { log "no 200 from $1 after $2 s"; return 1; }; sleep 0.1; done
}
pidfile_kill() { # pidfile: stops that process (our own, by its recorded pid) and waits for it
  [ -f "$1" ] || return 0
  local pid; pid=$(cat "$1")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$1"
}
start_edge() { # port id cpu [edge flags...]: a fresh edge JVM pinned to cpu, waits for /readyz; prints start to ready (ms)
  local port=$1 id=$2 cpu=$3 t0; shift 3; t0=$(date +%s%N)
  UPDRAFT_JAVA_OPTS="-Xmx1g -XX:+UseParallelGC ${EDGE_JAVA_OPTS:-}" taskset -c "$cpu" ./updraft edge --kafka-bootstrap 127.0.0.1:$KAFKA \
    --edge-port "$port" --edge-id "$id" "$@" >> "$WORK/edge-$id.log" 2>&1 & # appended: a restarted edge's log follows its drain
  echo $! > "$WORK/edge-$id.pid"
  wait_http "http://127.0.0.1:$port/readyz" 180
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
gen_args() { # the device fleet and the checks of every run
  echo "--app demo --channels production --runtime-versions 1.0.0 --devices 100000 --signature --verify-certificate $WORK/keys/certificate.pem --out-dir $WORK"
}
report() { # name: copies the summary, prints and keeps the verdict line (with the drop count)
  local name=$1
  local line; line=$(grep -E "^updraft load run: (VALID|INVALID).*, sent " "$WORK/$name.out" | tail -n1 || echo "no verdict: see $WORK/$name.out")
  cp "$WORK/$name-summary.json" "$OUT/" 2>/dev/null || true
  { echo "$name: $line"; grep -E "^capacity:" "$WORK/$name.out" || true; } > "$OUT/$name.txt"
  log "$name: $line"
}

up() {
  ./updraft --help >/dev/null 2>&1 || true   # builds the launcher first if it is stale, outside any clock
  if curl -fs -o /dev/null http://127.0.0.1:$DEV_EDGE/readyz; then log "dev stack already up"; return; fi
  rm -rf "$DATA"; mkdir -p "$DATA"
  log "starting updraft dev on CPU $OTHER_CPUS (data $DATA)"
  UPDRAFT_JAVA_OPTS="-Xmx2g" "${other[@]}" ./updraft dev --data-dir "$DATA" --control-port $CONTROL --edge-port $DEV_EDGE \
    --kafka-port $KAFKA --postgres-port $PG --admin-token $TOKEN > "$WORK/dev.log" 2>&1 &
  echo $! > "$WORK/dev.pid"
  wait_http http://127.0.0.1:$DEV_EDGE/readyz 300
  rm -rf "$WORK/keys"
  ./updraft keys generate --out "$WORK/keys" --common-name "Updraft benchmark" >/dev/null
  ./updraft apps create demo --certificate "$WORK/keys/certificate.pem" --private-key "$WORK/keys/private-key.pem" >/dev/null
  ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist fixtures/expo-export-sdk57/update-1 --message "bench 1" --no-progress --json > "$WORK/group1.json"
  ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist fixtures/expo-export-sdk57/update-2 --message "bench 2" --no-progress --json > "$WORK/group2.json"
  sleep 2
  if [ "${PIPELINE_WARMUP_ROUNDS:-3}" != 0 ]; then
    RATE=2000 ROUNDS=${PIPELINE_WARMUP_ROUNDS:-3} "${other[@]}" load/bench/pipeline-warmup.sh "$(cat "$WORK/dev.pid")" \
      http://127.0.0.1:$DEV_EDGE "$WORK/pipeline-warmup"
  fi
  log "dev stack up"
}

require_up() { curl -fs -o /dev/null http://127.0.0.1:$DEV_EDGE/readyz || { echo "the dev stack is not up: run '$0 up' first" >&2; exit 2; }; }
dev_pids() { echo "dev=$(cat "$WORK/dev.pid"),postgres=$(head -n1 "$DATA/postgres/postmaster.pid")"; }

xprem() {
  require_up
  local scale=${TIME_SCALE:-0.25}; [ "$SMOKE" = 1 ] && scale=0.05
  local ready; ready=$(start_edge $EDGE bench "$EDGE_CPU")
  log "xprem: edge ready in $ready ms on CPU $EDGE_CPU; xprem's phases at time scale $scale"
  local g1; g1=$(jq -r .groupId "$WORK/group1.json")
  set +e
  "${other[@]}" ./updraft load run --name "$TAG-xprem" $(gen_args) --target http://127.0.0.1:$EDGE --profile xprem --time-scale "$scale" \
    --warmup 20000 --metrics edge=http://127.0.0.1:$EDGE/metrics --pids "edge=$(cat "$WORK/edge-bench.pid"),$(dev_pids)" \
    --trigger-url "$UPDRAFT_SERVER/v1/apps/demo/rollbacks" --trigger-method POST --trigger-token "$TOKEN" \
    --trigger-body "{\"branch\":\"production\",\"runtimeVersion\":\"1.0.0\",\"toGroupId\":\"$g1\"}" > "$WORK/$TAG-xprem.out" 2>&1
  set -e
  report "$TAG-xprem"
  echo "edge start to ready: $ready ms (CPU $EDGE_CPU)" >> "$OUT/$TAG-xprem.txt"
  pidfile_kill "$WORK/edge-bench.pid"
}

cpu() {
  require_up
  local rate=${CPU_RATE:-5000} secs=${CPU_SECONDS:-60} rounds=${CPU_ROUNDS:-3} prerun=${CPU_PRERUN:-30s}
  [ "$SMOKE" = 1 ] && { rate=${CPU_RATE:-500}; secs=10; rounds=${CPU_ROUNDS:-1}; prerun=${CPU_PRERUN:-5s}; }
  [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "CPU_ROUNDS must be a whole number of at least 1: got '$rounds'" >&2; exit 2; }
  local ready; ready=$(start_edge $EDGE bench "$EDGE_CPU")
  log "cpu: edge ready in $ready ms on CPU $EDGE_CPU; $rounds rounds of $rate req/s for $secs s against it, then against a fresh trivial server on CPU $EDGE_CPU, each after a $prerun pre-run"
  local n name
  for n in $(seq 1 "$rounds"); do
    name=$TAG-cpu-$n
    rm -f "$WORK/$name-summary.json" "$OUT/$name-summary.json"   # a failed round must not leave an earlier round's figures
    set +e
    "${other[@]}" ./updraft load run --name "$name" $(gen_args) --target http://127.0.0.1:$EDGE --profile constant --rate "$rate" \
      --duration "${secs}s" --warmup 20000 --metrics edge=http://127.0.0.1:$EDGE/metrics --pids "edge=$(cat "$WORK/edge-bench.pid"),$(dev_pids)" \
      --baseline --baseline-cpus "$EDGE_CPU" --baseline-event-loops 1 --server-prerun "$prerun" > "$WORK/$name.out" 2>&1
    set -e
    report "$name"
  done
  pidfile_kill "$WORK/edge-bench.pid"
  # one line per round (null figures for a round without a summary), then the medians over the valid rounds
  for n in $(seq 1 "$rounds"); do
    if [ -f "$OUT/$TAG-cpu-$n-summary.json" ]; then
      jq -c --argjson n "$n" '{round: $n, edge_us: .baseline.ratio.server_cpu_ms_per_1000_requests_target,
        trivial_us: .baseline.ratio.server_cpu_ms_per_1000_requests_baseline, ratio: .baseline.ratio.server_cpu_vs_baseline,
        valid: (.run.valid and .baseline.valid), generator_us: .results.generator.cpu_ms_per_1000_requests}' "$OUT/$TAG-cpu-$n-summary.json"
    else
      echo "{\"round\": $n, \"edge_us\": null, \"trivial_us\": null, \"ratio\": null, \"valid\": false, \"generator_us\": null}"
    fi
  done | jq -s --argjson rate "$rate" --argjson secs "$secs" --arg prerun "$prerun" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2 | floor]
      else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def r3: if . == null then null else . * 1000 | round / 1000 end;
    . as $rounds | [$rounds[] | select(.valid and .ratio != null)] as $ok
    | ([$ok[].edge_us] | median) as $e | ([$ok[].trivial_us] | median) as $t
    | {rate: $rate, measured_seconds: $secs, server_prerun: $prerun,
       what: "CPU time per request (us) of the pinned edge and of a fresh trivial server on the same core, per round; medians over the valid rounds",
       rounds: $rounds, valid_rounds: ($ok | length), median_edge_us: ($e | r3), median_trivial_us: ($t | r3),
       median_ratio: ([$ok[].ratio] | median | r3),
       ratio_of_medians: (if $e != null and $t != null and $t > 0 then $e / $t | r3 else null end)}' > "$OUT/$TAG-cpu-rounds.json"
  local line
  line=$(jq -r '"cpu: \(.rounds | length) rounds of \(.rate) req/s for \(.measured_seconds) s, each after a \(.server_prerun) pre-run: edge "
    + ([.rounds[].edge_us | tostring] | join("/")) + " us per request, trivial server " + ([.rounds[].trivial_us | tostring] | join("/"))
    + " us, ratios " + ([.rounds[].ratio | tostring] | join("/")) + "; over \(.valid_rounds) valid rounds: median ratio \(.median_ratio),"
    + " ratio of medians \(.ratio_of_medians) (\(.median_edge_us) / \(.median_trivial_us) us); generator "
    + ([.rounds[].generator_us | tostring] | join("/")) + " us per request"' "$OUT/$TAG-cpu-rounds.json")
  { for n in $(seq 1 "$rounds"); do cat "$OUT/$TAG-cpu-$n.txt"; done; echo "$line"; } > "$OUT/$TAG-cpu.txt"
  log "$line"
}

restart() {
  require_up
  local secs=${RESTART_SECONDS:-90} at=30 rate=2000; [ "$SMOKE" = 1 ] && { secs=80; at=10; rate=300; }
  # the restarted edge gets the measured core to itself (its first seconds are the edge's, not its neighbours'); the
  # survivor shares the other core with the generator and the dev stack, as it did before the restart
  start_edge $EDGE bench "$EDGE2_CPU" >/dev/null
  start_edge $EDGE2 bench2 "$EDGE_CPU" >/dev/null
  log "restart: survivor on CPU $EDGE2_CPU, restarted edge on CPU $EDGE_CPU; $rate req/s for $secs s, restart at $at s"
  # the generator warms up on the two edges themselves (--warmup-on target), as a balancer's long-running edges have
  # served before any restart (the survivor shares a core with the generator: its first devices at t = 0 would
  # otherwise be its JIT's last work on that core); the generator's own first second on that core may still drop
  # requests (docs/benchmarks/edge.md, the second restart run)
  # the generator's t = 0 comes after its warm-up: the restart is timed from its first progress line
  # (the output of an earlier run must not start the clock)
  rm -f "$WORK/$TAG-restart.out" "$WORK/restart-times"
  ( until grep -q "^\[target " "$WORK/$TAG-restart.out" 2>/dev/null; do sleep 0.2; done; sleep "$at"
    log "stopping edge bench2 (SIGTERM)"; echo "stop $(date +%s%N)" > "$WORK/restart-times"
    pidfile_kill "$WORK/edge-bench2.pid"
    r=$(start_edge $EDGE2 bench2 "$EDGE_CPU"); echo "ready_ms $r" >> "$WORK/restart-times"
    log "edge bench2 ready again $r ms after its start" ) &
  local restarter=$!
  set +e
  "${other[@]}" ./updraft load run --name "$TAG-restart" $(gen_args) --target "http://127.0.0.1:$EDGE,http://127.0.0.1:$EDGE2" \
    --profile constant --rate "$rate" --duration "${secs}s" --warmup 20000 --warmup-on target --progress 1s \
    --metrics "edge=http://127.0.0.1:$EDGE/metrics,edge2=http://127.0.0.1:$EDGE2/metrics" \
    --pids "edge=$(cat "$WORK/edge-bench.pid"),$(dev_pids)" > "$WORK/$TAG-restart.out" 2>&1
  set -e
  wait $restarter || true
  report "$TAG-restart"
  load/bench/restart-verdict.py "$WORK/$TAG-restart-timeseries.csv" | tee "$OUT/$TAG-restart-verdict.json" >&2
  pidfile_kill "$WORK/edge-bench2.pid"
  pidfile_kill "$WORK/edge-bench.pid"
}

knee() {
  require_up
  local from=${KNEE_FROM:-1000} to=${KNEE_TO:-10000} step=${KNEE_STEP:-1000}; [ "$SMOKE" = 1 ] && { from=200; to=600; step=200; }
  local ready; ready=$(start_edge $EDGE bench "$EDGE_CPU")
  log "knee: edge ready in $ready ms on CPU $EDGE_CPU; $from to $to req/s by $step, 10 s holds"
  set +e
  "${other[@]}" ./updraft load run --name "$TAG-knee" $(gen_args) --target http://127.0.0.1:$EDGE --profile knee --knee-from "$from" \
    --knee-to "$to" --knee-step "$step" --knee-hold 10s --knee-ramp 2s --warmup 20000 --metrics edge=http://127.0.0.1:$EDGE/metrics \
    --pids "edge=$(cat "$WORK/edge-bench.pid"),$(dev_pids)" > "$WORK/$TAG-knee.out" 2>&1
  set -e
  report "$TAG-knee"
  pidfile_kill "$WORK/edge-bench.pid"
}

otlp() {
  require_up
  local rate=${OTLP_MANIFEST_RATE:-2000} secs=${OTLP_SECONDS:-45} orate=${OTLP_RATE:-200}
  [ "$SMOKE" = 1 ] && { rate=300; secs=10; orate=50; }
  local ready; ready=$(start_edge $EDGE bench "$EDGE_CPU" --trust-forwarded-for true)
  local update; update=$(jq -r '.platforms[] | select(.platform == "ios") | .updateId' "$WORK/group2.json")
  log "otlp: edge ready in $ready ms on CPU $EDGE_CPU; $rate req/s manifests for $secs s without, then with $orate OTLP requests/s"
  set +e
  for mode in off on; do
    local sender=""
    rm -f "$WORK/$TAG-otlp-$mode.out"
    if [ "$mode" = on ]; then
      # the sender starts after the generator's warm-up on its mirror (its first progress line) and runs the measured seconds
      ( until grep -q "^\[target " "$WORK/$TAG-otlp-$mode.out" 2>/dev/null; do sleep 0.2; done
        "${other[@]}" python3 load/bench/otlp-sender.py "http://127.0.0.1:$EDGE" demo "$update" "$orate" "$secs" 3 \
          > "$OUT/$TAG-otlp-sender.json" ) &
      sender=$!
    fi
    "${other[@]}" ./updraft load run --name "$TAG-otlp-$mode" $(gen_args) --target http://127.0.0.1:$EDGE --profile constant \
      --rate "$rate" --duration "${secs}s" --warmup 20000 --progress 1s --metrics edge=http://127.0.0.1:$EDGE/metrics \
      --pids "edge=$(cat "$WORK/edge-bench.pid"),$(dev_pids)" > "$WORK/$TAG-otlp-$mode.out" 2>&1
    [ -n "$sender" ] && wait "$sender"
    report "$TAG-otlp-$mode"
  done
  set -e
  cat "$OUT/$TAG-otlp-sender.json" >&2
  curl -fs "http://127.0.0.1:$EDGE/metrics" | grep -E '^updraft_edge_error_reports' > "$OUT/$TAG-otlp-edge-metrics.txt" || true
  pidfile_kill "$WORK/edge-bench.pid"
}

down() {
  pidfile_kill "$WORK/edge-bench.pid"; pidfile_kill "$WORK/edge-bench2.pid"
  pidfile_kill "$WORK/dev.pid"
  log "dev stack stopped"
}

STEPS=${*:-all}
[ "$STEPS" = all ] && STEPS="up xprem cpu restart knee otlp down"
for step in $STEPS; do
  case $step in
    up|xprem|cpu|restart|knee|otlp|down) $step ;;
    *) echo "unknown step '$step' (up xprem cpu restart knee otlp down all)" >&2; exit 2 ;;
  esac
done
log "done: $OUT"
