// The viewer on a big session, in headless Chromium: generates a session (default 100 MB),
// drops it on the page and prints the time to the first rows, the total load time, memory
// after the load, the number of DOM nodes, and frame times while scrolling the conversation and
// the operations panel top to bottom.
//   node tests/bench/viewer-load.mjs [size, default 100MB] [--drag-ms N] [--screenshot path.png]
// With --drag-ms N, the file is dragged over the page for N ms before it is dropped, as a person's
// drag does (the page prepares its worker meanwhile); without, it is dropped at once.
// The synthetic session holds CJK text and emoji: on a machine without fonts for them (a bare
// Debian has only DejaVu and Liberation), Chromium searches its fallback fonts the first time
// they show, one slow frame. For frame times a desktop would see, install them first:
//   apt-get install fonts-noto-cjk fonts-noto-color-emoji
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, serveDist, launchBrowser } from "../browser/harness.mjs";

const args = process.argv.slice(2);
const dragAt = args.indexOf("--drag-ms");
const dragMs = dragAt >= 0 ? Number(args[dragAt + 1]) : 0;
const size = args.find((a, i) => /^\d+(KB|MB|GB)?$/i.test(a) && (dragAt < 0 || i !== dragAt + 1)) || "100MB";
const shotAt = args.indexOf("--screenshot");
const dir = mkdtempSync(join(tmpdir(), "sessionscope-viewer-"));
execFileSync("cargo", ["run", "--quiet", "--release", "-p", "sessionscope-synth", "--bin", "gen-session", "--", "--out", dir, "--size", size, "--seed", "7", "--agents", "0"], { cwd: ROOT, stdio: "inherit" });
const main = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
const path = join(dir, main);
const bytes = statSync(path).size;

const server = await serveDist({ extra: { "/bench/session.jsonl": path } });
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    addEventListener("TrunkApplicationStarted", (e) => (window.__wasm = e.detail.wasm));
  });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
    if (m.type() === "debug") console.log(m.text());
  });
  await page.goto(server.url);
  await page.getByRole("button", { name: "Open example" }).waitFor();
  const result = await page.evaluate(async ({ name, dragMs }) => {
    const blob = await (await fetch("/bench/session.jsonl")).blob();
    const file = new File([blob], name);
    const data = new DataTransfer();
    data.items.add(file);
    const main = document.querySelector("main");
    if (dragMs > 0) {
      main.dispatchEvent(new DragEvent("dragenter", { dataTransfer: data, bubbles: true, cancelable: true }));
      for (let waited = 0; waited < dragMs; waited += 50) {
        main.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
        await new Promise((ok) => setTimeout(ok, 50));
      }
    }
    const t0 = performance.now();
    main.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    const firstRows = await new Promise((ok) => {
      const check = () => (document.querySelector("[role=treeitem]") ? ok(performance.now() - t0) : requestAnimationFrame(check));
      check();
    });
    const loaded = await new Promise((ok) => {
      const check = () => (document.querySelector("[aria-label='Load summary']") ? ok(performance.now() - t0) : requestAnimationFrame(check));
      check();
    });
    await new Promise((ok) => setTimeout(ok, 500));
    const memory = {
      jsHeap: performance.memory ? performance.memory.usedJSHeapSize : null,
      wasm: window.__wasm?.memory?.buffer?.byteLength ?? null,
    };
    const domNodes = document.getElementsByTagName("*").length;
    const treeItems = document.querySelectorAll("[role=treeitem]").length;
    let longTasks = 0;
    const observer = new PerformanceObserver((list) => (longTasks += list.getEntries().length));
    observer.observe({ entryTypes: ["longtask"] });
    const frame = () => new Promise((ok) => requestAnimationFrame(ok));
    await frame();
    // Scrolls `scroller` from top to bottom a screen at a time, timing each frame (sorted) and
    // counting the most `rows` in the DOM at once.
    const scrollThrough = async (scroller, rows) => {
      const frames = [];
      let steps = 0;
      let maxRows = 0;
      while (scroller && scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 2 && steps < 20000) {
        const before = performance.now();
        scroller.scrollTop += scroller.clientHeight;
        await frame();
        await frame();
        frames.push((performance.now() - before) / 2);
        maxRows = Math.max(maxRows, document.querySelectorAll(rows).length);
        steps++;
      }
      return { frames: frames.sort((a, b) => a - b), steps, maxRows };
    };
    const scroller = document.querySelector(".tree-scroll");
    const scrollStart = performance.now();
    const { frames, steps, maxRows: maxTreeItems } = await scrollThrough(scroller, "[role=treeitem]");
    const scrollMs = performance.now() - scrollStart;
    // The operations panel, virtualized too.
    const panelStatus = document.querySelector("[aria-label='Tool operations'] [role=status]")?.textContent ?? "";
    const panelScroll = await scrollThrough(document.querySelector(".panel-scroll"), ".panel-row");
    const { frames: panelFrames, steps: panelSteps, maxRows: maxPanelRows } = panelScroll;
    observer.disconnect();
    return {
      firstRows,
      loaded,
      memory,
      domNodes,
      treeItems,
      maxTreeItems,
      rows: scroller.scrollHeight,
      steps,
      scrollMs,
      frameMedian: frames[Math.floor(frames.length / 2)],
      frameP95: frames[Math.floor(frames.length * 0.95)],
      frameMax: frames.at(-1),
      framesOver50: frames.filter((f) => f > 50).length,
      longTasks,
      panel: {
        status: panelStatus,
        steps: panelSteps,
        maxRows: maxPanelRows,
        frameP95: panelFrames[Math.floor(panelFrames.length * 0.95)] ?? 0,
        frameMax: panelFrames.at(-1) ?? 0,
        framesOver50: panelFrames.filter((f) => f > 50).length,
      },
    };
  }, { name: main, dragMs });
  const mb = (n) => (n / 1e6).toFixed(1);
  console.log(`file: ${mb(bytes)} MB`);
  const dragged = dragMs > 0 ? ` (dragged over the page for ${dragMs} ms first)` : " (dropped without a drag first)";
  console.log(`first rows shown: ${result.firstRows.toFixed(0)} ms after the drop${dragged}; loaded: ${result.loaded.toFixed(0)} ms`);
  console.log(`memory after load: JS heap ${mb(result.memory.jsHeap)} MB, wasm ${mb(result.memory.wasm)} MB = ${((result.memory.jsHeap + result.memory.wasm) / bytes).toFixed(2)}x the file`);
  console.log(`DOM nodes: ${result.domNodes}; tree items in the DOM: ${result.treeItems} (at most ${result.maxTreeItems} while scrolling)`);
  console.log(JSON.stringify(result));
  console.log(`scroll top to bottom: ${result.steps} screens in ${result.scrollMs.toFixed(0)} ms; frame median ${result.frameMedian.toFixed(1)} ms, p95 ${result.frameP95.toFixed(1)} ms, max ${result.frameMax.toFixed(1)} ms, ${result.framesOver50} frames over 50 ms, ${result.longTasks} long tasks`);
  const p = result.panel;
  console.log(`operations panel (${p.status}): ${p.steps} screens, at most ${p.maxRows} rows in the DOM; frame p95 ${p.frameP95.toFixed(1)} ms, max ${p.frameMax.toFixed(1)} ms, ${p.framesOver50} frames over 50 ms`);
  if (shotAt >= 0) {
    await page.screenshot({ path: args[shotAt + 1] });
    console.log(`screenshot: ${args[shotAt + 1]}`);
  }
  if (errors.length) console.log("errors:", errors);
} finally {
  await browser.close();
  await server.close();
}
