// Loads the render module (src/bin/render.rs: Markdown and diffs) on the page, once the page
// asks for it (src/render_module.rs). Trunk builds the module as a no-modules wasm-bindgen
// script, whose `wasm_bindgen` this classic script can reach. When it is ready, or could not be
// loaded, the page hears the event "sessionscope-render" and finds the module's functions (or
// null) at `self.sessionscopeRender`.
(() => {
  const done = (module) => {
    self.sessionscopeRender = module;
    dispatchEvent(new Event("sessionscope-render"));
  };
  const glue = document.createElement("script");
  glue.src = new URL("render.js", document.currentScript.src).href;
  glue.onload = () =>
    wasm_bindgen({ module_or_path: new URL("render_bg.wasm", glue.src) }).then(
      () => done(wasm_bindgen),
      () => done(null),
    );
  glue.onerror = () => done(null);
  document.head.append(glue);
})();
