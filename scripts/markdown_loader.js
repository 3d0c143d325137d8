// Loads the Markdown module (src/bin/markdown.rs) on the page, once the page asks for it
// (src/markdown_module.rs). Trunk builds the module as a no-modules wasm-bindgen script, whose
// `wasm_bindgen` this classic script can reach. When it is ready, or could not be loaded, the
// page hears the event "sessionscope-markdown" and finds the renderer (or null) at
// `self.sessionscopeMarkdown`.
(() => {
  const done = (render) => {
    self.sessionscopeMarkdown = render;
    dispatchEvent(new Event("sessionscope-markdown"));
  };
  const glue = document.createElement("script");
  glue.src = new URL("markdown.js", document.currentScript.src).href;
  glue.onload = () =>
    wasm_bindgen({ module_or_path: new URL("markdown_bg.wasm", glue.src) }).then(
      () => done(wasm_bindgen.markdownToHtml),
      () => done(null),
    );
  glue.onerror = () => done(null);
  document.head.append(glue);
})();
