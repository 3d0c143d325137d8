#!/usr/bin/env python3
"""The MCP server's figures on a history: `sessionscope mcp <folder>` started and spoken to in
JSON-RPC over stdio; each call timed, with the server's resident memory after it (and its peak).
    python3 tests/bench/mcp.py target/release/sessionscope /work/bench-history/4g/projects [--no-cache]
"""
import atexit, json, subprocess, sys, time
binary, folder = sys.argv[1], sys.argv[2]
p = subprocess.Popen([binary, "mcp", folder, *sys.argv[3:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
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
p.kill()
