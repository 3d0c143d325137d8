#!/usr/bin/env python3
"""The MCP server's figures on a history: `sessionscope mcp <folder>` started and spoken to in
JSON-RPC over stdio; each call timed, with the server's resident memory after it (and its peak).
With --ranked, then 50 ranked `search` calls of 1 to 4 words of a session's first prompt, taken as
tests/bench/ranked-search.py takes them for the command line: their median, p95 and max.
    python3 tests/bench/mcp.py target/release/sessionscope /work/bench-history/4g/projects [--no-cache] [--ranked]
"""
import atexit, json, os, random, re, statistics, subprocess, sys, time
binary, folder = sys.argv[1], sys.argv[2]
ranked = "--ranked" in sys.argv[3:]
p = subprocess.Popen([binary, "mcp", folder, *[a for a in sys.argv[3:] if a != "--ranked"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
# The server goes with the script, however it ends (a reader that stops early included): one left
# running would go on making its sets and take the next run's cores.
atexit.register(p.kill)
n = 0
def call(method, params=None):
    global n
    n += 1
    msg = {"jsonrpc": "2.0", "id": n, "method": method}
    if params is not None: msg["params"] = params
    t = time.perf_counter()
    p.stdin.write(json.dumps(msg) + "\n"); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line: raise SystemExit("server closed")
        r = json.loads(line)
        if r.get("id") == n: break
    return (time.perf_counter() - t) * 1000, r
def rss():
    s = open(f"/proc/{p.pid}/status").read()
    get = lambda k: int([l for l in s.splitlines() if l.startswith(k)][0].split()[1]) // 1024
    return f"RSS {get('VmRSS:')} MB, peak {get('VmHWM:')} MB"
call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"); p.stdin.flush()
for name, args in [("list_sessions", {}), ("list_sessions", {}), ("list_projects", {}), ("search", {"query": "zanzibar"}), ("search", {"query": "zanzibar"}), ("search", {"query": "function", "limit": 20}), ("search", {"query": "merge_duplicates refunds test"}), ("search", {"query": "parse amount role:user", "limit": 20}), ("usage", {}), ("usage", {})]:
    ms, r = call("tools/call", {"name": name, "arguments": args})
    text = r.get("result", {}).get("content", [{}])[0].get("text", "")
    print(f"{name} {json.dumps(args)}: {ms:.0f} ms, {len(text)} chars; {rss()}", flush=True)
if ranked:
    rows = json.loads(subprocess.run([binary, "index", "--json", folder], capture_output=True, text=True).stdout)["sessions"]
    random.seed(int(os.environ.get("SEED", "11")))
    queries = []
    for row in random.sample(rows, min(50, len(rows))):
        words = re.findall(r"[A-Za-z][A-Za-z_]{3,}", row["first_prompt"])
        if words:
            queries.append(" ".join(random.sample(words, random.randint(1, min(4, len(words))))))
    times = sorted(call("tools/call", {"name": "search", "arguments": {"query": query, "limit": 10}})[0] for query in queries)
    p95 = times[max(0, int(len(times) * 0.95) - 1)]
    print(f"{len(times)} ranked searches: median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, max {times[-1]:.0f} ms; {rss()}")
p.kill()
