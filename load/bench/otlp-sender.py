#!/usr/bin/env python3
"""Open-model OTLP/HTTP error reports beside a benchmark run (docs/benchmarks/edge.md, issue 42).

Sends OTLP/HTTP JSON log exports (ExportLogsServiceRequest, EXCEPTIONS log records each, with the resource
attributes docs/errors.md lists) to an edge's POST /v1/logs at RATE requests per second for SECONDS, each request's
send time fixed in advance. Every request carries an X-Forwarded-For address of its own /24 (the edge must run with
--trust-forwarded-for), so the edge's per-network limit (600 a minute per /24) does not turn the load into 429s:
the point is the route's full cost (read, decode on a worker, produce to Kafka), not its refusal. A request that
cannot start within 100 ms of its planned time is counted as late (the sender fell behind).
Prints one JSON summary line: sent, by status, late, and the sender's latency p50/p99 in ms.

Usage: otlp-sender.py URL APP UPDATE_ID RATE SECONDS [EXCEPTIONS]
"""
import http.client
import json
import sys
import time
import urllib.parse
import uuid


def body(app, update_id, client_id, n):
    def attr(k, v):
        return {"key": k, "value": {"stringValue": v}}

    now = str(time.time_ns())
    records = [{
        "timeUnixNano": now,
        "severityNumber": 17,
        "severityText": "ERROR",
        "body": {"stringValue": "unhandled promise rejection"},
        "attributes": [
            attr("exception.type", "TypeError"),
            attr("exception.message", "undefined is not an object (evaluating 'user.name')"),
            attr("exception.stacktrace",
                 "TypeError: undefined is not an object (evaluating 'user.name')\n"
                 f"    at LoginScreen{i % 3} (http://127.0.0.1/index.bundle?platform=ios:1:{1000 + i})\n"
                 "    at renderWithHooks (http://127.0.0.1/index.bundle?platform=ios:1:52000)\n"
                 "    at beginWork (http://127.0.0.1/index.bundle?platform=ios:1:61000)"),
        ],
    } for i in range(n)]
    return json.dumps({"resourceLogs": [{
        "resource": {"attributes": [
            attr("expo.app.id", app), attr("expo.update.id", update_id), attr("expo.channel", "production"),
            attr("expo.runtime_version", "1.0.0"), attr("os.name", "ios"), attr("expo.client.id", client_id)]},
        "scopeLogs": [{"scope": {"name": "bench"}, "logRecords": records}],
    }]}).encode()


def main():
    if len(sys.argv) < 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    url, app, update_id = sys.argv[1], sys.argv[2], sys.argv[3]
    rate, seconds = float(sys.argv[4]), float(sys.argv[5])
    exceptions = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    clients = [str(uuid.uuid4()) for _ in range(1000)]
    bodies = [body(app, update_id, c, exceptions) for c in clients[:50]]
    total = int(rate * seconds)
    statuses, late, lat = {}, 0, []
    t0 = time.monotonic()
    for i in range(total):
        planned = t0 + i / rate
        now = time.monotonic()
        if planned > now:
            time.sleep(planned - now)
        elif now - planned > 0.1:
            late += 1
            continue
        headers = {"content-type": "application/json",
                   "x-forwarded-for": f"10.{(i >> 8) & 255}.{i & 255}.7"}
        try:
            conn.request("POST", "/v1/logs", body=bodies[i % len(bodies)], headers=headers)
            r = conn.getresponse()
            r.read()
            code = str(r.status)
            if r.getheader("connection", "").lower() == "close":
                conn.close()
        except (OSError, http.client.HTTPException) as e:
            code = type(e).__name__
            conn.close()
        lat.append((time.monotonic() - planned) * 1000)
        statuses[code] = statuses.get(code, 0) + 1
    lat.sort()

    def pct(p):
        return round(lat[min(len(lat) - 1, int(len(lat) * p))], 2) if lat else None

    print(json.dumps({"otlp_sender": {"url": url, "rate": rate, "seconds": seconds, "exceptions_per_request": exceptions,
                                      "planned": total, "sent": len(lat), "late_dropped": late, "status": statuses,
                                      "latency_ms": {"p50": pct(0.5), "p99": pct(0.99)}}}))


if __name__ == "__main__":
    main()
