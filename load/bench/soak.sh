#!/usr/bin/env bash
# An hour of load (docs/reliability.md "Soak"): does anything grow that should not?
#
# `updraft dev` (Kafka, PostgreSQL, control plane, ingester) + one edge process, and for DURATION:
#   - `updraft load run --profile constant` at RATE device requests/s on channel production (one check-in each);
#   - a publish on branch production every PUBLISH_S (fixture updates 1 and 2 in turn; devices follow);
#   - a rollout change every ROLLOUT_S on branch canary (publish with a 10 % guarded rollout, 25 %, 50 %, finish);
#   - every SAMPLE_S, per process (edge, dev): heap after a full GC (jcmd GC.run, then jstat), RSS, threads,
#     open file descriptors; PostgreSQL's RSS and descriptors summed over the postmaster and its backends
#     (shared buffers count once per backend that touched them); Kafka lag (the edge's event log, the
#     ingester's telemetry); PostgreSQL's database size per device (it grows with every publish by design:
#     one update_receipts row per device served the update, docs/operations.md).
# Writes $OUT/soak-samples.csv and $OUT/soak-slopes.json, the load generator's own result files
# (soak-summary.json, soak-timeseries.csv, soak-report.html), and prints each sample's slope per hour (a
# least-squares line through the samples after WARMUP_S) and its change over the run.
#
# Usage: load/bench/soak.sh
#        DURATION=2m RATE=50 load/bench/soak.sh      (a short check that everything works)
# Environment: DURATION (1h), RATE (1000), SAMPLE_S (10), PUBLISH_S (60), ROLLOUT_S (300), WARMUP_S (300; 0
# when DURATION is under 20 minutes), OUT (result dir), DATA (an `updraft dev` data dir, removed first unless REUSE=1), KEEP=1
# (leave the stack running). Needs curl, jq, psql and the JDK's jcmd and jstat. Run it on a quiet machine:
# the sampling forces a full GC of each JVM every SAMPLE_S.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
STAMP=$(date -u +%Y-%m-%dT%H%M)
OUT=${OUT:-$ROOT/load/results/soak-$STAMP}
DATA=${DATA:-/tmp/updraft-soak-data}
DURATION=${DURATION:-1h}
RATE=${RATE:-1000}
SAMPLE_S=${SAMPLE_S:-10}
PUBLISH_S=${PUBLISH_S:-60}
ROLLOUT_S=${ROLLOUT_S:-300}
CONTROL=8180; DEV_EDGE=3180; EDGE=3190; KAFKA=19192; PG=15532
TOKEN=soak-admin-token-0123456789abcdef
SERVER=http://127.0.0.1:$CONTROL
UPDATE1=$ROOT/fixtures/expo-export-sdk57/update-1
UPDATE2=$ROOT/fixtures/expo-export-sdk57/update-2
export UPDRAFT_SERVER=$SERVER UPDRAFT_TOKEN=$TOKEN

seconds() { # 90s, 2m, 1h -> seconds
  case $1 in
    *ms) echo $(( ${1%ms} / 1000 )) ;; *s) echo "${1%s}" ;; *m) echo $(( ${1%m} * 60 )) ;; *h) echo $(( ${1%h} * 3600 )) ;;
    *) echo "DURATION must look like 90s, 2m or 1h: got $1" >&2; exit 2 ;;
  esac
}
RUN_S=$(seconds "$DURATION")
WARMUP_S=${WARMUP_S:-$([ "$RUN_S" -lt 1200 ] && echo 0 || echo 300)}

for tool in curl jq psql jcmd jstat; do
  command -v $tool >/dev/null || { echo "soak: needs $tool" >&2; exit 2; }
done
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

PIDS=()
cleanup() {
  local status=$?
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" != 1 ]; then
    for f in "$OUT/edge.pid" "$OUT/dev.pid"; do
      [ -f "$f" ] || continue
      local pid=$(cat "$f")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$f"
    done
  fi
  exit $status
}
trap cleanup EXIT INT TERM

wait_http() { # url, seconds
  local i=0
  until curl -fs -o /dev/null "$1"; do i=$((i+1)); [ $i -gt $(( $2 * 5 )) ] && { log "timeout waiting for $1"; return 1; }; sleep 0.2; done
}

start_stack() {
  if [ -d "$DATA" ] && [ "${REUSE:-0}" != 1 ]; then
    # a fresh run: only ever removes an earlier `updraft dev` data dir
    [ -d "$DATA/kafka" ] || [ -f "$DATA/admin-token" ] || { echo "soak: $DATA exists and is not an updraft data dir; set DATA" >&2; exit 2; }
    rm -rf "$DATA"
  fi
  log "starting updraft dev (data $DATA)"
  UPDRAFT_JAVA_OPTS="-Xmx2g" nohup ./updraft dev --data-dir "$DATA" --control-port $CONTROL --edge-port $DEV_EDGE \
    --kafka-port $KAFKA --postgres-port $PG --admin-token $TOKEN > "$OUT/dev.log" 2>&1 &
  echo $! > "$OUT/dev.pid"
  wait_http http://127.0.0.1:$DEV_EDGE/readyz 300
  INGESTER_METRICS=$(grep -Eo 'http://127.0.0.1:[0-9]+/metrics \(ingester\)' "$OUT/dev.log" | head -n1 | cut -d' ' -f1)
  if ! ./updraft apps show demo >/dev/null 2>&1; then
    ./updraft keys generate --out "$OUT/keys" --common-name "Updraft soak" >/dev/null
    ./updraft apps create demo --certificate "$OUT/keys/certificate.pem" --private-key "$OUT/keys/private-key.pem" >/dev/null
    ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist "$UPDATE1" --message "soak 0" --no-progress >/dev/null
  fi
  log "starting the edge on $EDGE"
  UPDRAFT_JAVA_OPTS="-Xmx1g -XX:+UseParallelGC" nohup ./updraft edge --kafka-bootstrap 127.0.0.1:$KAFKA --edge-port $EDGE \
    --edge-id soak > "$OUT/edge.log" 2>&1 &
  echo $! > "$OUT/edge.pid"
  wait_http http://127.0.0.1:$EDGE/readyz 120
}

# --- sampling -----------------------------------------------------------------------------------------
metric() { # url, series (exact name and labels): the value, or empty
  curl -s --max-time 5 "$1" 2>/dev/null | awk -v s="$2" 'index($0, s " ") == 1 {print $2; exit}'
}
heap_after_gc_mb() { # pid: full GC, then used heap (survivors + eden + old) from jstat
  jcmd "$1" GC.run >/dev/null 2>&1 || { echo ""; return; }
  jstat -gc "$1" 2>/dev/null | awk 'NR==1 {for (i=1; i<=NF; i++) c[$i]=i} NR==2 {printf "%.1f", ($c["S0U"]+$c["S1U"]+$c["EU"]+$c["OU"])/1024}'
}
rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status" 2>/dev/null; }
threads() { awk '/^Threads/ {print $2}' "/proc/$1/status" 2>/dev/null; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
tree() { echo "$1"; ps -o pid= --ppid "$1" 2>/dev/null; } # a process and its children (postgres: the postmaster and its backends)
tree_rss_mb() { for p in $(tree "$1"); do awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null; done | awk '{s+=$1} END {printf "%.1f", s/1024}'; }
tree_fds() { for p in $(tree "$1"); do ls "/proc/$p/fd" 2>/dev/null; done | wc -l; }
pg_pid() { head -n1 "$DATA/postgres/postmaster.pid"; }
sql() { PGCONNECT_TIMEOUT=5 psql -h 127.0.0.1 -p $PG -U postgres -d updraft -Atc "$1" 2>/dev/null; }

COLUMNS="t_s,edge_heap_after_gc_mb,edge_rss_mb,edge_threads,edge_fds,dev_heap_after_gc_mb,dev_rss_mb,dev_threads,dev_fds,postgres_rss_mb,postgres_fds,edge_log_lag_records,ingest_lag_records,pg_database_mb,devices,pg_bytes_per_device,publishes,rollout_changes"
sample() { # t_s
  local edge=$(cat "$OUT/edge.pid") dev=$(cat "$OUT/dev.pid") pg=$(pg_pid)
  local db=$(sql "SELECT pg_database_size(current_database())") devices=$(sql "SELECT count(*) FROM devices")
  local per=""
  [ -n "$db" ] && [ -n "$devices" ] && [ "$devices" -gt 0 ] && per=$(( db / devices ))
  echo "$1,$(heap_after_gc_mb $edge),$(rss_mb $edge),$(threads $edge),$(fds $edge),$(heap_after_gc_mb $dev),$(rss_mb $dev),$(threads $dev),$(fds $dev),$(tree_rss_mb $pg),$(tree_fds $pg),$(metric http://127.0.0.1:$EDGE/metrics updraft_edge_log_lag_records),$(metric "$INGESTER_METRICS" updraft_ingest_lag_records),$([ -n "$db" ] && echo "scale=1; $db / 1048576" | bc),$devices,$per,$(cat "$OUT/publishes" 2>/dev/null || echo 0),$(cat "$OUT/rollouts" 2>/dev/null || echo 0)"
}
sampler() { # until the stop file exists, at most RUN_S + 300 s
  local t0=$(date +%s) next=0
  echo "$COLUMNS" > "$OUT/soak-samples.csv"
  while [ ! -f "$OUT/stop" ] && [ $(( $(date +%s) - t0 )) -le $(( RUN_S + 300 )) ]; do
    local now=$(( $(date +%s) - t0 ))
    if [ "$now" -ge "$next" ]; then
      sample "$now" >> "$OUT/soak-samples.csv"
      next=$(( next + SAMPLE_S ))
    fi
    sleep 1
  done
}

# --- the publisher and the rollout ----------------------------------------------------------------------
publisher() {
  local n=0 t0=$(date +%s)
  echo 0 > "$OUT/publishes"
  while [ ! -f "$OUT/stop" ] && [ $(( $(date +%s) - t0 )) -le "$RUN_S" ]; do
    sleep "$PUBLISH_S"
    [ -f "$OUT/stop" ] && break
    n=$((n + 1))
    local dist=$([ $((n % 2)) = 1 ] && echo "$UPDATE2" || echo "$UPDATE1")
    if ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist "$dist" --message "soak $n" --no-progress >> "$OUT/publishes.log" 2>&1; then
      echo "$n" > "$OUT/publishes"
    else
      log "publish $n failed (see $OUT/publishes.log)"
    fi
  done
}

rollouts() {
  local k=0 group="" t0=$(date +%s)
  echo 0 > "$OUT/rollouts"
  while [ ! -f "$OUT/stop" ] && [ $(( $(date +%s) - t0 )) -le "$RUN_S" ]; do
    sleep "$ROLLOUT_S"
    [ -f "$OUT/stop" ] && break
    local ok=1
    case $((k % 4)) in
      0) group=$(./updraft publish --app demo --branch canary --runtime-version 1.0.0 --dist "$([ $((k % 8)) = 0 ] && echo "$UPDATE1" || echo "$UPDATE2")" \
           --message "canary $k" --rollout-percentage 10 --guard-max-failure-rate 50 --guard-min-devices 100 --guard-window 1h --no-progress --json \
           2>> "$OUT/rollouts.log" | jq -r .groupId) || ok=0 ;;
      1) ./updraft rollout --app demo --update "$group" --percentage 25 >> "$OUT/rollouts.log" 2>&1 || ok=0 ;;
      2) ./updraft rollout --app demo --update "$group" --percentage 50 >> "$OUT/rollouts.log" 2>&1 || ok=0 ;;
      3) ./updraft rollout --app demo --update "$group" --finish >> "$OUT/rollouts.log" 2>&1 || ok=0 ;;
    esac
    if [ $ok = 1 ] && [ -n "$group" ] && [ "$group" != null ]; then
      k=$((k + 1))
      echo "$k" > "$OUT/rollouts"
    else
      log "rollout change $k failed (see $OUT/rollouts.log)"
    fi
  done
}

# --- slopes ---------------------------------------------------------------------------------------------
slopes() {
  awk -F, -v warm="$WARMUP_S" '
    NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; cols = NF; next }
    $1 >= warm {
      for (i = 2; i <= cols; i++) if ($i != "") {
        n[i]++; sx[i] += $1; sy[i] += $i; sxx[i] += $1 * $1; sxy[i] += $1 * $i
        if (!(i in first)) first[i] = $i
        last[i] = $i
      }
    }
    END {
      printf "{\n  \"warmup_s\": %d,\n  \"slopes_per_hour\": {\n", warm
      sep = ""
      for (i = 2; i <= cols; i++) {
        if (n[i] < 2) continue
        d = n[i] * sxx[i] - sx[i] * sx[i]
        slope = d == 0 ? 0 : (n[i] * sxy[i] - sx[i] * sy[i]) / d * 3600
        mean = sy[i] / n[i]
        printf "%s    \"%s\": {\"samples\": %d, \"first\": %s, \"last\": %s, \"mean\": %.2f, \"slope_per_hour\": %.3f, \"slope_percent_of_mean_per_hour\": %.2f}", \
          sep, name[i], n[i], first[i], last[i], mean, slope, mean == 0 ? 0 : 100 * slope / mean
        sep = ",\n"
      }
      printf "\n  }\n}\n"
    }' "$OUT/soak-samples.csv"
}

start_stack
log "load: $RATE req/s for $DURATION; publish every ${PUBLISH_S}s, rollout change every ${ROLLOUT_S}s, samples every ${SAMPLE_S}s"
rm -f "$OUT/stop"
sampler & PIDS+=($!)
publisher & PIDS+=($!)
rollouts & PIDS+=($!)
set +e
./updraft load run --name soak --profile constant --rate "$RATE" --duration "$DURATION" --warmup 2000 \
  --target http://127.0.0.1:$EDGE --app demo --channels production --runtime-versions 1.0.0 --devices 100000 \
  --signature --verify-certificate "$OUT/keys/certificate.pem" --out-dir "$OUT" --max-error-rate 0.001 \
  --metrics "edge=http://127.0.0.1:$EDGE/metrics,control=$SERVER/metrics,ingester=$INGESTER_METRICS" \
  --pids "edge=$(cat "$OUT/edge.pid"),dev=$(cat "$OUT/dev.pid"),postgres=$(pg_pid)" > "$OUT/soak-load.out" 2>&1
LOAD_STATUS=$?
set -e
touch "$OUT/stop"
# the publisher and the rollout loops may sleep minutes before they see the stop file: end them now
for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
wait "${PIDS[@]}" 2>/dev/null || true
PIDS=()
sample "$(( $(tail -n1 "$OUT/soak-samples.csv" | cut -d, -f1) + SAMPLE_S ))" >> "$OUT/soak-samples.csv"
slopes > "$OUT/soak-slopes.json"
log "load generator exit $LOAD_STATUS ($OUT/soak-load.out); $(($(wc -l < "$OUT/soak-samples.csv") - 1)) samples; publishes $(cat "$OUT/publishes"), rollout changes $(cat "$OUT/rollouts")"
tail -n 4 "$OUT/soak-load.out" >&2
echo "slope per hour (after ${WARMUP_S}s of warm-up), first -> last:"
jq -r '.slopes_per_hour | to_entries[] | "  \(.key): \(.value.slope_per_hour)/h (\(.value.slope_percent_of_mean_per_hour) % of the mean), \(.value.first) -> \(.value.last)"' "$OUT/soak-slopes.json"
log "results in $OUT"
exit $LOAD_STATUS
