#!/usr/bin/env python3
"""Relevance of `sessionscope search` on the team's real fixtures (issue 52), ranked against the
exact search it replaced: for each session whose first prompt has at least three words of four
letters or more, three of them in another order are the query, and the session is the one meant.
Prints recall@1, recall@3 and the mean reciprocal rank of both; the exact search looks for the
words as one text, as the search did before, and its hits are ordered by how many each session has.
    python3 tests/bench/real-relevance.py target/release/sessionscope ../shared/fixtures/real
"""
import json, os, random, re, subprocess, sys, tempfile

binary, folder = sys.argv[1:3]
env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": tempfile.mkdtemp(prefix="sessionscope-relevance-")}
run = lambda *args: json.loads(subprocess.run([binary, *args], capture_output=True, text=True, env=env).stdout or "{}")
rows = run("index", "--json", folder).get("sessions", [])
random.seed(int(os.environ.get("SEED", "5")))
queries = []
for row in rows:
    words = list(dict.fromkeys(w.lower() for w in re.findall(r"[A-Za-z]{4,}", row.get("first_prompt", ""))))
    if len(words) >= 3:
        picked = random.sample(words, 3)
        queries.append((" ".join(picked), row["session_id"]))

def figures(ranked_ids):
    at1 = at3 = rr = 0.0
    for (query, wanted), ids in zip(queries, ranked_ids):
        if wanted in ids:
            at = ids.index(wanted)
            at1 += at == 0
            at3 += at < 3
            rr += 1 / (at + 1)
    n = max(1, len(queries))
    return at1 / n, at3 / n, rr / n

ranked, exact = [], []
for query, _ in queries:
    ranked.append([r["session_id"] for r in run("search", "--json", "--limit=20", query, folder).get("results", [])])
    counts = {}
    for hit in run("search", "--json", "--exact", "--limit=0", query, folder).get("hits", []):
        counts[hit["session_id"]] = counts.get(hit["session_id"], 0) + 1
    exact.append(sorted(counts, key=lambda id: (-counts[id], id)))
print(f"{len(rows)} sessions, {len(queries)} queries of three words of a first prompt, in another order")
for name, ids in [("ranked", ranked), ("exact (before)", exact)]:
    at1, at3, mrr = figures(ids)
    print(f"{name}: recall@1 {at1:.3f}, recall@3 {at3:.3f}, MRR {mrr:.3f}")
