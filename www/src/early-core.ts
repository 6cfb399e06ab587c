// The pages' first script (index.html, embed.html; it imports nothing, so it runs as soon
// as it arrives): it starts compiling the wasm core with its first bytes, while the
// element's module and the rest download. Without it the element starts that compile
// only once its own module has arrived and run, and the bytes already there are all
// compiled then, on the main thread, between the module and the first frame. The page's
// script hands it to the element (core.ts).
if (typeof WebAssembly.compileStreaming === 'function') {
  const compile = WebAssembly.compileStreaming(fetch(new URL('kraft_playground_bg.wasm', import.meta.url)));
  compile.catch(() => {});
  (self as { kraftPlaygroundCore?: Promise<WebAssembly.Module> }).kraftPlaygroundCore = compile;
}
