// The Chromium processes of this run (every process below this Node process) and what they
// use, read from /proc: resident and proportional memory, and CPU seconds. Shared by the
// benchmarks that report the browser's memory or CPU.
import { readFileSync, readdirSync } from "node:fs";

/** Processes below `root` (this process by default): the Chromium tree of this run. */
export function descendants(root = process.pid) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(Number(name));
    } catch {}
  }
  const out = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Memory of Chromium's processes, in bytes: `pss` (proportional set size, from smaps_rollup: the
 * kernel walks each process's page tables for it, which is costly while workers hold gigabytes
 * of wasm memory) and `rss` (resident set size, from statm: a counter, cheap, but pages shared
 * between processes count in each).
 */
export function browserMemory({ pss = false } = {}) {
  let total = 0;
  for (const pid of descendants()) {
    try {
      if (pss) {
        const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
        const found = /^Pss:\s+(\d+) kB/m.exec(rollup);
        if (found) total += Number(found[1]) * 1024;
      } else {
        total += Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4096;
      }
    } catch {}
  }
  return total;
}

/** CPU seconds (user + system) used so far by Chromium's processes. */
export function browserCpuSeconds() {
  let ticks = 0;
  for (const pid of descendants()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / 100;
}
