#!/usr/bin/env bash
# Insights at fleet scale (issue 19, docs/benchmarks/insights-scale.md): every insights route, the device
# route and one evaluation of the automatic-revert guard with DEVICES devices that were all served one
# update (DEVICES rows in update_receipts for it), FAILING_PERCENT of them reporting it failed.
#
# `updraft dev` (Kafka, PostgreSQL, control plane, ingester, edge), an app, one update group published to
# production with a guarded 50 % rollout; then the telemetry tables are seeded straight with SQL (devices,
# device_counts, update_receipts, update_failures, update_hourly: the rows the ingester would have written
# for that fleet over the last 7 days) and the ingester's counters (update_device_totals, receipt_minutes)
# are filled by the statements of the migration that introduced them (db-schema V4), as an upgrade would.
# Each route is then called REQUESTS times (sequentially, curl, after WARM calls) and the guard's statement
# (RolloutGuardEvaluator.SQL) run REQUESTS times in one psql session; p50/p95/p99/max in ms go to
# $OUT/insights-scale-summary.json.
#
# Usage: load/bench/insights-scale.sh
#        DEVICES=200000 REQUESTS=50 load/bench/insights-scale.sh      (a short check that everything works)
# Environment: DEVICES (10000000), FAILING_PERCENT (2), REQUESTS (200), WARM (20), OUT (result dir), DATA (an
# `updraft dev` data dir, removed first), KEEP=1 (leave the stack running). Needs curl, jq and psql. Seeding
# ten million devices takes several minutes and ~6 GB of disk. Run it on a quiet machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
STAMP=$(date -u +%Y-%m-%dT%H%M)
OUT=${OUT:-$ROOT/load/results/insights-scale-$STAMP}
DATA=${DATA:-/tmp/updraft-insights-scale-data}
DEVICES=${DEVICES:-10000000}
FAILING_PERCENT=${FAILING_PERCENT:-2}
REQUESTS=${REQUESTS:-200}
WARM=${WARM:-20}
CONTROL=8280; EDGE=3280; KAFKA=19292; PG=15632
TOKEN=insights-scale-token-0123456789abcdef
SERVER=http://127.0.0.1:$CONTROL
UPDATE1=$ROOT/fixtures/expo-export-sdk57/update-1
V4=$ROOT/db-schema/src/main/resources/db/migration/V4__insights_counters.sql
export UPDRAFT_SERVER=$SERVER UPDRAFT_TOKEN=$TOKEN

for tool in curl jq psql; do
  command -v $tool >/dev/null || { echo "insights-scale: needs $tool" >&2; exit 2; }
done
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
sql() { PGCONNECT_TIMEOUT=5 psql -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $PG -U postgres -d updraft -Atq "$@"; }

PID=
cleanup() {
  local status=$?
  if [ -n "$PID" ] && [ "${KEEP:-0}" != 1 ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  exit $status
}
trap cleanup EXIT INT TERM

if [ -e "$DATA" ]; then
  [ -d "$DATA/kafka" ] || [ -f "$DATA/admin-token" ] || { echo "insights-scale: $DATA is not an updraft data dir; set DATA" >&2; exit 2; }
  rm -rf "$DATA"
fi
log "starting updraft dev (data $DATA)"
UPDRAFT_JAVA_OPTS="-Xmx2g" nohup ./updraft dev --data-dir "$DATA" --control-port $CONTROL --edge-port $EDGE \
  --kafka-port $KAFKA --postgres-port $PG --admin-token $TOKEN > "$OUT/dev.log" 2>&1 &
PID=$!
for i in $(seq 1 600); do curl -fs -o /dev/null "$SERVER/healthz" && break; sleep 0.2; done
curl -fs -o /dev/null "$SERVER/healthz" || { log "control plane not ready; see $OUT/dev.log"; exit 1; }

./updraft keys generate --out "$OUT/keys" --common-name "Updraft insights scale" >/dev/null
./updraft apps create demo --certificate "$OUT/keys/certificate.pem" --private-key "$OUT/keys/private-key.pem" >/dev/null
./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist "$UPDATE1" --message "scale" \
  --rollout-percentage 50 --guard-max-failure-rate 50 --guard-min-devices 100 --guard-window 1h --no-progress --json > "$OUT/publish.json"
GROUP=$(jq -r .groupId "$OUT/publish.json")
IOS=$(jq -r '.platforms[] | select(.platform == "ios") | .updateId' "$OUT/publish.json")
ANDROID=$(jq -r '.platforms[] | select(.platform == "android") | .updateId' "$OUT/publish.json")
log "group $GROUP: ios $IOS, android $ANDROID"

log "seeding $DEVICES devices, $DEVICES receipts of $IOS, $FAILING_PERCENT % failing"
t0=$(date +%s)
sql <<SQL
SET synchronous_commit = off;
SET maintenance_work_mem = '512MB';
-- device d: served the update at now - (d mod 7 days) (one per ~60 ms), runs it since; every
-- (100 / FAILING_PERCENT)-th device reported it failed a minute later and runs its embedded bundle again
CREATE TEMP TABLE fleet AS
  SELECT 'dev-' || d AS client_id, now() - ((d % 10080) * interval '1 minute') - ((d % 60) * interval '1 second') AS served,
         (d % (100 / $FAILING_PERCENT) = 0) AS failed
    FROM generate_series(1, $DEVICES) d;
INSERT INTO update_receipts (app_id, update_id, client_id, platform, first_served)
  SELECT 'demo', '$IOS', client_id, 'ios', served FROM fleet;
INSERT INTO update_failures (app_id, update_id, client_id, platform, first_reported, last_reported, reports)
  SELECT 'demo', '$IOS', client_id, 'ios', served + interval '1 minute', served + interval '1 minute', 1 FROM fleet WHERE failed;
INSERT INTO devices (app_id, client_id, platform, runtime_version, channel, current_update_id, embedded_update_id, source,
    first_seen, last_seen, check_ins, last_check_in_id, outcome, reason, branch, in_branch_rollout, rollout_bucket,
    served_update_id, served_group_id, failed_update_ids, edge_id)
  SELECT 'demo', client_id, 'ios', '1.0.0', 'production', CASE WHEN failed THEN 'emb-ios' ELSE '$IOS' END, 'emb-ios',
         CASE WHEN failed THEN 'embedded' ELSE 'ota' END, served - interval '1 day', served + interval '2 minutes', 3,
         client_id || '-3', 'no-update', 'already-latest', 'production', true, 17, '$IOS', '$GROUP',
         CASE WHEN failed THEN ARRAY['$IOS'] ELSE '{}'::text[] END, 'edge-1'
    FROM fleet;
INSERT INTO device_counts (app_id, update_id, platform, channel, source, devices)
  SELECT app_id, coalesce(current_update_id, ''), platform, coalesce(channel, ''), source, count(*)
    FROM devices WHERE app_id = 'demo' GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (app_id, update_id, platform, channel, source) DO UPDATE SET devices = EXCLUDED.devices;
INSERT INTO update_hourly (app_id, update_id, hour, platform, channel, launches, embedded_launches, failure_reports, served)
  SELECT 'demo', '$IOS', date_trunc('hour', now()) - h * interval '1 hour', 'ios', 'production',
         $DEVICES / 168 * 3, 0, $DEVICES / 168 * $FAILING_PERCENT / 100, $DEVICES / 168
    FROM generate_series(0, 167) h
  ON CONFLICT DO NOTHING;
SQL
if [ "$(sql -c "SELECT to_regclass('update_device_totals') IS NOT NULL")" = t ]; then
  # the counters, from the seeded rows, by the migration's own backfill statements
  { echo "TRUNCATE update_device_totals, receipt_minutes;"; sed -n '/^INSERT INTO update_device_totals/,$p' "$V4"; } | sql
fi
sql -c "VACUUM ANALYZE"
SEED_S=$(( $(date +%s) - t0 ))
log "seeded in ${SEED_S} s; database $(sql -c "SELECT pg_size_pretty(pg_database_size('updraft'))")"

# p50 p95 p99 max of the numbers (ms) on stdin, as JSON
stats() {
  sort -n | awk '{a[NR]=$1} END {
    n = NR;
    i50 = int(n * 0.50 + 0.999); i95 = int(n * 0.95 + 0.999); i99 = int(n * 0.99 + 0.999);
    printf "{\"n\": %d, \"p50_ms\": %.2f, \"p95_ms\": %.2f, \"p99_ms\": %.2f, \"max_ms\": %.2f}", n, a[i50], a[i95], a[i99], a[n] }'
}
route() { # name path [expected status, 200]
  local name=$1 path=$2 expected=${3:-200} code
  code=$(curl -s -o "$OUT/$name.json" -w '%{http_code}' -H "authorization: Bearer $TOKEN" "$SERVER$path")
  [ "$code" = "$expected" ] || { log "$name: HTTP $code: $(cat "$OUT/$name.json")"; exit 1; }
  for i in $(seq 1 "$WARM"); do curl -s -o /dev/null -H "authorization: Bearer $TOKEN" "$SERVER$path"; done
  for i in $(seq 1 "$REQUESTS"); do
    curl -s -o /dev/null -w '%{time_total}\n' -H "authorization: Bearer $TOKEN" "$SERVER$path"
  done | awk '{printf "%.3f\n", $1 * 1000}' | stats
}

log "timing the routes ($REQUESTS calls each after $WARM)"
GROUP_S=$(route group "/v1/apps/demo/insights/updates/$GROUP")
CHANNEL_S=$(route channel "/v1/apps/demo/insights/channels/production")
DEVICE_S=$(route device "/v1/apps/demo/devices/dev-$(( DEVICES / 2 ))")
MISSING_S=$(route device-missing "/v1/apps/demo/devices/dev-none" 404)
REFUSALS_S=$(route refusals "/v1/apps/demo/insights/refusals")

log "timing the guard's statement ($REQUESTS runs)"
# RolloutGuardEvaluator.SQL with the window of the published guard (1 h) ending now
GUARD_SQL=$(cat <<'SQL'
SELECT update_id, sum(received)::bigint AS received, sum(failed)::bigint AS failed FROM (
 SELECT m.update_id, m.received, m.failed FROM receipt_minutes m
   WHERE m.app_id = $1 AND m.update_id = ANY($2::text[]) AND m.minute >= $4
 UNION ALL SELECT r.update_id, 1, CASE WHEN f.client_id IS NULL THEN 0 ELSE 1 END
   FROM update_receipts r LEFT JOIN update_failures f
     ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id
   WHERE r.app_id = $1 AND r.update_id = ANY($2::text[]) AND r.first_served >= $3 AND r.first_served < $4
) x GROUP BY update_id
SQL
)
GUARD_S=$({
  echo "PREPARE guard(text, text[], timestamptz, timestamptz) AS $GUARD_SQL;"
  echo '\timing on'
  for i in $(seq 1 "$REQUESTS"); do
    echo "EXECUTE guard('demo', ARRAY['$IOS', '$ANDROID'], now() - interval '3599.5 seconds',"
    echo "  date_trunc('minute', now() - interval '3599.5 seconds') + interval '1 minute');"
  done
} | sql 2>&1 | awk '/^Time: / {print $2}' | stats)
echo "$({ echo "PREPARE g(text, text[], timestamptz, timestamptz) AS $GUARD_SQL;";
  echo "EXPLAIN (ANALYZE, BUFFERS) EXECUTE g('demo', ARRAY['$IOS', '$ANDROID'], now() - interval '3599.5 seconds',"
  echo "  date_trunc('minute', now() - interval '3599.5 seconds') + interval '1 minute');"; } | sql)" > "$OUT/guard-plan.txt"

jq -n --arg stamp "$STAMP" --argjson devices "$DEVICES" --argjson failing "$FAILING_PERCENT" --argjson seed "$SEED_S" \
  --arg cores "$(nproc)" --arg java "$(java -version 2>&1 | head -n1)" \
  --argjson group "$GROUP_S" --argjson channel "$CHANNEL_S" --argjson device "$DEVICE_S" \
  --argjson missing "$MISSING_S" --argjson refusals "$REFUSALS_S" --argjson guard "$GUARD_S" \
  --slurpfile answer "$OUT/group.json" \
  '{benchmark: "insights-scale", at: $stamp, devices: $devices, receipts: $devices, failing_percent: $failing,
    seed_seconds: $seed, cores: $cores, java: $java, target_p95_ms: 200,
    routes: {group: $group, channel: $channel, device: $device, device_missing: $missing, refusals: $refusals},
    guard_statement: $guard, group_answer: $answer[0]}' > "$OUT/insights-scale-summary.json"
cat "$OUT/insights-scale-summary.json"
log "results in $OUT"
