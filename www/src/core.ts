// The wasm core's compile that the pages' first script (early-core.ts) started, handed to
// the element. Where it failed (a server that does not say application/wasm), the element
// compiles the fetched bytes instead.
import type { KraftPlayground } from 'kraft-playground/element';

export function takeEarlyCore(element: typeof KraftPlayground): void {
  const early = (self as { kraftPlaygroundCore?: Promise<WebAssembly.Module> }).kraftPlaygroundCore;
  if (early) element.wasm = early.catch(() => fetch(new URL('kraft_playground_bg.wasm', location.href)));
}
