// The element's caption markup (web/src/ui/story/markup.ts): the same rule as the core's
// (crate/scenario/src/markup.rs, whose spans a scenario report carries), in time linear
// in the caption. Bundled from source with esbuild; renderCaption runs on a minimal
// stand-in for the DOM (it only creates nodes and appends them).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import * as kp from '../dist/node.js';

const source = fileURLToPath(new URL('../src/ui/story/markup.ts', import.meta.url));

async function loadMarkup() {
  const dir = mkdtempSync(join(tmpdir(), 'kp-markup-'));
  try {
    const outfile = join(dir, 'markup.mjs');
    await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Just enough of `document` for renderCaption; `markup()` reads a tree back as text. */
function fakeDocument() {
  const node = (tag) => ({
    tag,
    children: [],
    textContent: '',
    appendChild(c) {
      this.children.push(c);
      return c;
    },
  });
  return {
    createDocumentFragment: () => node('#fragment'),
    createElement: (tag) => node(tag),
    createTextNode: (text) => ({ tag: '#text', textContent: text }),
  };
}
const markers = { strong: '**', em: '*', code: '`' };
function markup(n) {
  if (n.tag === '#text') return n.textContent;
  if (n.tag === 'br') return '\n';
  if (n.tag in markers) return markers[n.tag] + n.textContent + markers[n.tag];
  const inner = n.children.map(markup).join('');
  return n.tag === 'p' ? `<p>${inner}</p>` : inner;
}

test('caption spans: the same as the core on random captions', async () => {
  const { spans } = await loadMarkup();
  await kp.init();
  let state = 7;
  const next = (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const alphabet = ['*', '*', '*', '`', '`', 'a', ' ', 'é'];
  const captions = ['****a**', '***a***', '*a**b*', '``x`', '**a* b**', '`*a*` **`b`**', '*****'];
  for (let i = 0; i < 2000; i++) {
    captions.push(Array.from({ length: next(24) }, () => alphabet[next(alphabet.length)]).join(''));
  }
  const steps = captions.map((caption) => ({ after: 0, caption: caption || ' ' }));
  const scenario = { id: 'markup', title: 'markup', summary: 's', cluster: { voters: 1 }, durationMs: 10, steps, expect: [] };
  const { report, cluster } = kp.runScenarioSync(JSON.stringify(scenario), {});
  cluster.dispose();
  report.steps.forEach((s, i) => {
    assert.deepEqual(spans(steps[i].caption), s.captionSpans, JSON.stringify(steps[i].caption));
  });
});

test('renderCaption: a 4 MB caption, in time linear in its length', async () => {
  // Only the last star on the long line is not half of a `**`: the first rule walked
  // every `**` left in the line looking for it, at each of the line's 1.3 M runs (6 s for
  // 100 KB, growing with the square: hours for 4 MB), so a quadratic version never
  // finishes this test. The output is checked whole.
  const { renderCaption } = await loadMarkup();
  globalThis.document = fakeDocument();
  try {
    const line = '**b** '.repeat(4_000_000 / 6);
    const frag = renderCaption(`${line}*em*\n**x** y\n\n\`z\``);
    assert.equal(markup(frag), `<p>${line}*em*\n**x** y</p><p>\`z\`</p>`);
    const first = frag.children[0].children;
    assert.equal(first.length, (line.length / 6) * 2 + 4, 'a node per run: bold, plain, ..., em, br, bold, plain');
    assert.deepEqual(
      first
        .slice(0, 2)
        .concat(first.slice(-4))
        .map((n) => [n.tag, n.textContent]),
      [
        ['strong', 'b'],
        ['#text', ' '],
        ['em', 'em'],
        ['br', ''],
        ['strong', 'x'],
        ['#text', ' y'],
      ],
    );
  } finally {
    delete globalThis.document;
  }
});
