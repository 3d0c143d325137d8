#!/usr/bin/env python3
"""`sessionscope search --exact` (every match of a text) against `rg -c` on a history, runs alternated, medians printed; the
cache is made first (the first search reads every session once) and that run is timed apart.
    python3 tests/bench/cli-search.py target/release/sessionscope /work/bench-history/4g/projects zanzibar function
"""
import os, statistics, subprocess, sys, tempfile, time

binary, folder, rare, common = sys.argv[1:5]
runs = int(os.environ.get("RUNS", "7"))
cache = tempfile.mkdtemp(prefix="sessionscope-bench-cache-")
env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": cache}


def timed(args, env=None):
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


print(f"first search (reads and remembers every session): {timed([binary, 'search', '--exact', rare, folder], env):.0f} ms")
for word in (rare, common):
    ours, theirs, raw = [], [], []
    for _ in range(runs):
        ours.append(timed([binary, "search", "--exact", word, folder], env))
        theirs.append(timed(["rg", "-c", "-i", word, folder]))
        raw.append(timed([binary, "search", "--exact", word, folder, "--no-cache"]))
    m, r, n = statistics.median(ours), statistics.median(theirs), statistics.median(raw)
    print(f"{word}: sessionscope search {m:.0f} ms (runs {min(ours):.0f}-{max(ours):.0f}), "
          f"rg -c -i {r:.0f} ms ({min(theirs):.0f}-{max(theirs):.0f}), --no-cache {n:.0f} ms; rg/ours {r / m:.1f}x")
