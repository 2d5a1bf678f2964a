#!/usr/bin/env python3
"""Prints the Markdown table of tools/bench/watch_scale.sh from the files it left in WORK.

    watch_report.py WORK

WORK holds settings.json; metrics-rN-{start,end}.txt, each replica's /metrics at the start and
the end of the measurement; fakeI-{start,end}.json, each fake_target's /_fake/stats then;
time-{start,end}.txt (Unix seconds); rss.txt ("rN KiB" samples of VmRSS); hwm.txt ("rN KiB",
VmHWM at the end); load.jsonl (one line per load run: "when" before or during, and the
"service" and "nginx" results of tools/bench/fixed_rate.cpp); created.json
(tools/bench/make_watches.py); cpu-{start,end}.txt ("rN seconds" and "fakeI seconds", CPU
time used so far). Exits 1 when an offer run had a non-2xx, or /metrics counted
no watch checks.
"""
import json
import math
import os
import re
import sys

SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
CHECKS = "netherscope_watch_checks_total"
LAG = "netherscope_watch_schedule_lag_seconds"
JOINS = "netherscope_joins_total"
JOIN_TIME = "netherscope_join_duration_seconds"

# The bars.
LAG_P99_BAR_S = 10
RSS_BAR_MIB = 256
OFFER_P99_BAR_MS = 5
ONCE_TOLERANCE = 0.05


def read(work, name):
    with open(os.path.join(work, name)) as f:
        return f.read()


def samples(text):
    """Every sample of a Prometheus text: (name, labels, value)."""
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if not m or line.startswith("#"):
            continue
        labels = dict(LABEL.findall(m.group(2) or ""))
        yield m.group(1), labels, float(m.group(3))


def watch_series(text):
    """The checks by result and the lag histogram's cumulative buckets, count and sum."""
    checks, buckets, count, total = {}, {}, 0.0, 0.0
    for name, labels, value in samples(text):
        if name == CHECKS:
            result = labels.get("result", "")
            checks[result] = checks.get(result, 0.0) + value
        elif name == LAG + "_bucket":
            le = float(labels["le"])  # float("+Inf") is inf
            buckets[le] = buckets.get(le, 0.0) + value
        elif name == LAG + "_count":
            count += value
        elif name == LAG + "_sum":
            total += value
    return checks, buckets, count, total


def join_series(text):
    """The joins by outcome and the join time histogram's cumulative buckets and count."""
    outcomes, buckets, count = {}, {}, 0.0
    for name, labels, value in samples(text):
        if name == JOINS:
            outcome = labels.get("outcome", "")
            outcomes[outcome] = outcomes.get(outcome, 0.0) + value
        elif name == JOIN_TIME + "_bucket":
            le = float(labels["le"])
            buckets[le] = buckets.get(le, 0.0) + value
        elif name == JOIN_TIME + "_count":
            count += value
    return outcomes, buckets, count


def quantile_bound(buckets, count, q):
    """The upper bound of the bucket that holds the quantile q; None without samples."""
    if count <= 0:
        return None
    for le in sorted(buckets):
        if buckets[le] >= q * count:
            return le
    return math.inf


def minus(end, start):
    return {k: v - start.get(k, 0.0) for k, v in end.items()}


def p99_bound(buckets, count):
    """The upper bound of the bucket that holds the 99th percentile; None without samples."""
    if count <= 0:
        return None
    for le in sorted(buckets):
        if buckets[le] >= 0.99 * count:
            return le
    return math.inf


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    work = sys.argv[1]
    s = json.loads(read(work, "settings.json"))
    created = json.loads(read(work, "created.json"))
    replicas = [f"r{r}" for r in range(1, s["replicas"] + 1)]
    seconds = float(read(work, "time-end.txt")) - float(read(work, "time-start.txt"))

    per_replica = {}
    all_checks, all_buckets, all_count = {}, {}, 0.0
    for r in replicas:
        c0, b0, n0, _ = watch_series(read(work, f"metrics-{r}-start.txt"))
        c1, b1, n1, _ = watch_series(read(work, f"metrics-{r}-end.txt"))
        checks, buckets = minus(c1, c0), minus(b1, b0)
        per_replica[r] = checks
        for k, v in checks.items():
            all_checks[k] = all_checks.get(k, 0.0) + v
        for k, v in buckets.items():
            all_buckets[k] = all_buckets.get(k, 0.0) + v
        all_count += n1 - n0
    recorded = int(all_checks.get("recorded", 0))
    skipped = int(all_checks.get("skipped", 0))
    made = recorded + skipped
    expected = s["watches"] * seconds / s["period"]
    lag = p99_bound(all_buckets, all_count)

    join_outcomes, join_buckets, join_count = {}, {}, 0.0
    for r in replicas:
        o0, b0, n0 = join_series(read(work, f"metrics-{r}-start.txt"))
        o1, b1, n1 = join_series(read(work, f"metrics-{r}-end.txt"))
        for k, v in minus(o1, o0).items():
            join_outcomes[k] = join_outcomes.get(k, 0.0) + v
        for k, v in minus(b1, b0).items():
            join_buckets[k] = join_buckets.get(k, 0.0) + v
        join_count += n1 - n0

    fake = {}
    for i in range(s["fakes"]):
        a = json.loads(read(work, f"fake{i}-start.json"))
        b = json.loads(read(work, f"fake{i}-end.json"))
        for k in ("status_requests", "offers", "raknet_pings", "stun_requests"):
            fake[k] = fake.get(k, 0) + b.get(k, 0) - a.get(k, 0)

    cpu = {}
    for when, sign in (("start", -1), ("end", 1)):
        for line in read(work, f"cpu-{when}.txt").splitlines():
            name, _, secs = line.partition(" ")
            kind = "service" if name.startswith("r") else "fakes"
            cpu[kind] = cpu.get(kind, 0.0) + sign * float(secs)

    rss_peak = {}
    for line in read(work, "rss.txt").splitlines():
        name, _, kib = line.partition(" ")
        if kib.strip().isdigit():
            rss_peak[name] = max(rss_peak.get(name, 0), int(kib))
    hwm = {}
    for line in read(work, "hwm.txt").splitlines():
        name, _, kib = line.partition(" ")
        if kib.strip().isdigit():
            hwm[name] = int(kib)

    before, during = None, []
    for line in read(work, "load.jsonl").splitlines():
        run = json.loads(line)
        if run["when"] == "before":
            before = run
        else:
            during.append(run)
    runs_all = during + ([before] if before else [])
    # A request that failed or went unanswered counts as a bad reply, as a non-2xx does.
    bad = sum(r["service"]["non2xx"] + r["service"]["failed"] + r["service"]["unanswered"]
              for r in runs_all if r["service"])
    measured = [r for r in during if r["service"] and r["nginx"]]
    worst = max((r["service"]["p99_ms"] for r in measured), default=None)
    worst_nginx = max((r["nginx"]["p99_ms"] for r in measured), default=None)

    def mib(kib):
        return f"{kib / 1024:.1f} MiB"

    def verdict(ok):
        return "n/a" if ok is None else ("yes" if ok else "**no**")

    peak_hwm = max(hwm.values(), default=0)
    ratio = made / expected if expected > 0 else None
    runs = s["replicas"]
    where = (f"{runs} replicas on one redis-server" if runs > 1 else "one service on LMDB")
    largest = max((le for le in all_buckets if not math.isinf(le)), default=0)
    lag_text = ("no checks counted" if lag is None
                else f"> {largest:g} s" if math.isinf(lag) else f"≤ {lag:g} s")

    print(f"{s['watches']:,} watched servers (fakes with --raknet {s['raknet']}, nice "
          f"{s.get('fake_nice', 0)}), every {s['period']} s, "
          f"{where}, {seconds:.0f} s measured; {created['created']:,} watches made in "
          f"{created['seconds']} s over {s['accounts']} accounts.")
    print()
    print("| measurement | result | bar | met |")
    print("|---|---|---|---|")
    print(f"| schedule lag p99 (the bucket that holds it, from /metrics) | {lag_text} "
          f"| < {LAG_P99_BAR_S} s | {verdict(None if lag is None else lag <= LAG_P99_BAR_S)} |")
    print(f"| service's peak RSS (VmHWM at the end; highest VmRSS sampled while measuring) | "
          + ", ".join(f"{r}: {mib(hwm.get(r, 0))} ({mib(rss_peak.get(r, 0))})" for r in replicas)
          + f" | ≤ {RSS_BAR_MIB} MB | {verdict(peak_hwm / 1024 <= RSS_BAR_MIB if hwm else None)} |")
    p99s = ", ".join(f"{r['service']['p99_ms']:.2f}" for r in measured) or "no run"
    nginx_p99s = ", ".join(f"{r['nginx']['p99_ms']:.2f}" for r in measured) or "no run"
    load = f"{s['offer_rate']}/s open loop over {s['load_connections']} connections"
    print(f"| cached POST /api/offer p99 while the checks run ({load}, {s['load_seconds']} s "
          f"every {s['load_every']} s) | worst {worst if worst is None else f'{worst:.2f} ms'} "
          f"(runs: {p99s} ms) | < {OFFER_P99_BAR_MS} ms "
          f"| {verdict(None if worst is None else worst < OFFER_P99_BAR_MS)} |")
    print(f"| nginx at the same rate right after each run (the machine's own p99 then) | worst "
          f"{worst_nginx if worst_nginx is None else f'{worst_nginx:.2f} ms'} "
          f"(runs: {nginx_p99s} ms) | | |")
    if before and before["service"] and before["nginx"]:
        print(f"| the same before any watch: service, nginx | {before['service']['p99_ms']:.2f} ms, "
              f"{before['nginx']['p99_ms']:.2f} ms | | |")
    print(f"| checks made (recorded + skipped) ÷ watches × run ÷ period | {made:,} "
          f"({recorded:,} + {skipped:,}) ÷ {expected:,.0f} = "
          f"{'n/a' if ratio is None else f'{ratio:.3f}'} | each once per period: "
          f"1 ± {ONCE_TOLERANCE} | "
          f"{verdict(None if not made or ratio is None else abs(ratio - 1) <= ONCE_TOLERANCE)} |")
    if runs > 1:
        print("| checks by replica | "
              + ", ".join(f"{r}: {int(sum(per_replica[r].values())):,}" for r in replicas)
              + " | | |")
    print(f"| the fakes' status requests, offers, RakNet pings in the run | "
          f"{fake.get('status_requests', 0):,}, {fake.get('offers', 0):,}, "
          f"{fake.get('raknet_pings', 0):,} | | |")
    if made:
        print(f"| CPU per check (user + system over the window, load runs and the services' "
              f"join workers included; "
              f"÷ checks made) | services {1000 * cpu.get('service', 0) / made:.2f} ms, "
              f"fakes {1000 * cpu.get('fakes', 0) / made:.2f} ms | | |")
    joined = int(join_outcomes.get("joined", 0))
    joins_run = int(sum(join_outcomes.values()))
    others = ", ".join(f"{k} {int(v):,}" for k, v in sorted(join_outcomes.items())
                       if v and k != "joined")
    def bound(q):
        b = quantile_bound(join_buckets, join_count, q)
        return "n/a" if b is None else ("> 10 s" if math.isinf(b) else f"≤ {1000 * b:g} ms")
    print(f"| joins in the window: joined of run (other outcomes) | {joined:,} of {joins_run:,}"
          f"{f' ({others})' if others else ''} | | |")
    print(f"| join time p50, p99 (the buckets that hold them, from /metrics) | {bound(0.5)}, "
          f"{bound(0.99)} | | |")
    print(f"| non-2xx, failed or unanswered offers in the load runs | {bad} | 0 "
          f"| {verdict(bad == 0)} |")

    problems = []
    if bad:
        problems.append(f"{bad} measured offers were answered non-2xx, failed or went "
                        "unanswered")
    if not made:
        problems.append(f"/metrics counted no watch checks ({CHECKS}): is the scheduler in "
                        "this build?")
    for p in problems:
        print("watch_scale: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
