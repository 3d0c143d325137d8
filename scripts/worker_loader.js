// Starts the loading worker: Trunk builds it as a no-modules wasm-bindgen script.
// An error that reaches the worker's top, or a promise rejected with nobody to hear it (a trap of
// the wasm code inside an awaited promise's callback ends so), is named to the page, by its kind
// (`TypeError`, `RangeError`, `RuntimeError`, ...): the page stops the worker then and says in words what happened
// (src/client/handle.rs, `Crash`); the browser's message stays in this console. (Safari's engine
// does not pass such an error on to the page's `Worker`, so this message is all the page hears.)
for (const type of ["error", "unhandledrejection"]) addEventListener(type, (event) => postMessage({ sessionscopeCrash: ((event.error || event.reason) && (event.error || event.reason).name) || "" }));
importScripts("./worker.js");
wasm_bindgen({ module_or_path: "./worker_bg.wasm" });

// SQLite, for an agent's database (src/database.rs): the glue module and the official
// sqlite-wasm build beside it in sqlite/, imported the first time a database is opened and
// never before. (A classic worker imports a module only through import().)
let sqlite;
self.sessionscopeSqlite = () => (sqlite ??= import("./sqlite/records.mjs").then((glue) => glue.start()));
