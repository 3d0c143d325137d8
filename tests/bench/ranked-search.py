#!/usr/bin/env python3
"""`sessionscope search` ranked (issue 52): 50 queries of 1 to 4 words, each taken in a random
order from a random session's first prompt, timed one process each with the history remembered
(the cache made first, that run not counted); prints the median, p95 and max, and how often a
session of that first prompt comes first and in the top 3 (generated histories repeat prompts, so
"a session of that prompt" and not the one the words were taken from).
    python3 tests/bench/ranked-search.py target/release/sessionscope /work/bench-history/4g/projects
"""
import json, os, random, re, statistics, subprocess, sys, tempfile, time

binary, folder = sys.argv[1:3]
env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": os.environ.get("SESSIONSCOPE_CACHE_DIR") or tempfile.mkdtemp(prefix="sessionscope-bench-cache-")}
start = time.perf_counter()
rows = json.loads(subprocess.run([binary, "search", "--json", "--exact", "zzzzqqqq", folder], capture_output=True, text=True, env=env).stdout or "{}")
print(f"first search (reads and remembers every session): {(time.perf_counter() - start) * 1000:.0f} ms")
rows = json.loads(subprocess.run([binary, "index", "--json", folder], capture_output=True, text=True, env=env).stdout)["sessions"]
prompts = {row["session_id"]: row["first_prompt"] for row in rows}
random.seed(int(os.environ.get("SEED", "11")))
queries = []
for row in random.sample(rows, min(50, len(rows))):
    words = re.findall(r"[A-Za-z][A-Za-z_]{3,}", row["first_prompt"])
    if words:
        queries.append((" ".join(random.sample(words, random.randint(1, min(4, len(words))))), row["first_prompt"]))
times, first, top3, read = [], 0, 0, []
for query, prompt in queries:
    start = time.perf_counter()
    out = subprocess.run([binary, "search", "--json", "--limit=10", query, folder], capture_output=True, text=True, env=env)
    times.append((time.perf_counter() - start) * 1000)
    answer = json.loads(out.stdout)
    read.append(answer["units_read"])
    found = [prompts.get(result["session_id"]) for result in answer["results"]]
    first += found[:1] == [prompt]
    top3 += prompt in found[:3]
times.sort()
p95 = times[max(0, int(len(times) * 0.95) - 1)]
print(f"{len(queries)} queries: median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, max {times[-1]:.0f} ms; "
      f"a session of that first prompt first {first}, in the top 3 {top3}; units read a query: median {statistics.median(read):.0f} of {len(rows)} sessions")
cache = env["SESSIONSCOPE_CACHE_DIR"]
sizes = {name: os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(cache) for name in names}
print("cache: " + ", ".join(f"{name} {size / 1e6:.1f} MB" for name, size in sorted(sizes.items())))
