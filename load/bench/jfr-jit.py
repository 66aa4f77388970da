#!/usr/bin/env python3
"""What the JIT compiled, and what it deoptimised, in the last seconds of a flight recording, grouped by whose code.

Usage: load/bench/jfr-jit.py RECORDING.jfr SECONDS [SUMMARY.json]
The recording needs jdk.Compilation with threshold 0 ms and jdk.Deoptimization enabled (for example a copy of
the JDK's lib/jfr/profile.jfc with those two settings changed, passed as -XX:StartFlightRecording:settings=FILE).
Prints the compilations and their compile time in the last SECONDS of the recording by group (Updraft, Kafka's
clients, Kafka's broker, Vert.x and Netty, the JDK), the deoptimisations by reason and group, and the compile time
per 30 s from the recording's start; writes the same as JSON to SUMMARY.json when given. Needs `jfr` on the PATH.
"""
import collections
import datetime
import json
import subprocess
import sys


def events(recording, name):
    out = subprocess.run(["jfr", "print", "--json", "--events", name, recording], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["recording"]["events"]


def start(e):
    return datetime.datetime.fromisoformat(e["values"]["startTime"].replace("Z", "+00:00"))


def seconds(e):
    d = e["values"]["duration"]
    return float(d[2:-1]) if d.startswith("PT") and d.endswith("S") else 0.0


def group(cls):
    cls = cls.replace("/", ".")
    if cls.startswith("dev.updraft"):
        return "Updraft"
    if cls.startswith("org.apache.kafka.clients") or cls.startswith("org.apache.kafka.common"):
        return "Kafka clients and common (the broker uses common too)"
    if cls.startswith("kafka.") or cls.startswith("org.apache.kafka.") or cls.startswith("scala."):
        return "Kafka broker, controller, coordinators (and Scala)"
    if cls.startswith("io.vertx") or cls.startswith("io.netty"):
        return "Vert.x and Netty"
    if cls.startswith(("java.", "jdk.", "sun.", "com.sun.")):
        return "JDK"
    return "other"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    recording, window = sys.argv[1], float(sys.argv[2])
    comps = events(recording, "jdk.Compilation")
    deopts = events(recording, "jdk.Deoptimization")
    if not comps:
        sys.exit("no jdk.Compilation events in " + recording)
    end = max(start(e) for e in comps)
    first = min(start(e) for e in comps)
    last = [e for e in comps if (end - start(e)).total_seconds() <= window]
    count, time = collections.Counter(), collections.Counter()
    for e in last:
        g = group(e["values"]["method"]["type"]["name"])
        count[g] += 1
        time[g] += seconds(e)
    total = sum(time.values())
    summary = {"window_seconds": window, "compilations": len(last), "compile_seconds": round(total, 2), "by_code": {}}
    print("last %.0f s: %d compilations, %.1f s of compile time (%.0f ms per second)" % (window, len(last), total, 1000 * total / window))
    for g, t in time.most_common():
        print("  %-60s %4d compilations %5.2f s (%2.0f %%)" % (g, count[g], t, 100 * t / max(total, 1e-9)))
        summary["by_code"][g] = {"compilations": count[g], "seconds": round(t, 2)}
    late = [e for e in deopts if (end - start(e)).total_seconds() <= window]
    reasons = collections.Counter(e["values"]["reason"] for e in late)
    by = collections.Counter(group(e["values"]["method"]["type"]["name"]) for e in late)
    print("deoptimisations: %d; by reason: %s" % (len(late), dict(reasons.most_common())))
    print("deoptimisations by code: %s" % dict(by.most_common()))
    buckets = collections.Counter()
    for e in comps:
        buckets[int((start(e) - first).total_seconds() // 30)] += seconds(e)
    curve = [round(buckets[i], 1) for i in range(max(buckets) + 1)]
    print("compile seconds per 30 s from the first compilation: " + " ".join(str(c) for c in curve))
    summary.update({"deoptimisations": len(late), "deopt_reasons": dict(reasons.most_common()), "deopt_by_code": dict(by.most_common()),
                    "compile_seconds_per_30s": curve})
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
