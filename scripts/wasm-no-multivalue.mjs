// Takes `multivalue` out of a wasm file's target_features section (the file is rewritten),
// so that wasm-bindgen keeps its return-pointer ABI for the exports: it turns on its
// multi-value transform whenever that section lists the feature, and Rust's std (built
// with LLVM's default features) always does. Why: a multi-value export signature costs
// Node's V8 (11.3, Node 20) a TurboFan-compiled JS-to-wasm wrapper each, made eagerly in
// `new WebAssembly.Module`; the core had 19 of them, 3.5 of the 6 ms of its compile
// (scripts/bench-startup.mjs measures `init()`). The code itself is unchanged: LLVM's C
// ABI returns nothing as multiple values, and engines accept the feature either way.
// Run by scripts/build-wasm.sh before wasm-bindgen.
//   node scripts/wasm-no-multivalue.mjs FILE.wasm
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2];
const bytes = readFileSync(file);

function uleb(at) {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const b = bytes[i++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(b & 0x80)) return [value, i];
  }
}
function encode(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}

const parts = [bytes.subarray(0, 8)];
let found = false;
for (let i = 8; i < bytes.length; ) {
  const start = i;
  const [size, body] = uleb(i + 1);
  const end = body + size;
  if (bytes[i] === 0) {
    const [nameLen, nameAt] = uleb(body);
    if (bytes.subarray(nameAt, nameAt + nameLen).toString() === 'target_features') {
      found = true;
      let [count, at] = uleb(nameAt + nameLen);
      const kept = [];
      for (; count > 0; count--) {
        const entryAt = at;
        const [len, textAt] = uleb(at + 1);
        at = textAt + len;
        if (bytes.subarray(textAt, at).toString() !== 'multivalue') kept.push(bytes.subarray(entryAt, at));
      }
      const payload = Buffer.concat([bytes.subarray(body, nameAt + nameLen), encode(kept.length), ...kept]);
      parts.push(Buffer.from([0]), encode(payload.length), payload);
      i = end;
      continue;
    }
  }
  parts.push(bytes.subarray(start, end));
  i = end;
}
if (!found) {
  console.error(`wasm-no-multivalue: ${file} has no target_features section (wasm-bindgen needs it; is the cargo profile stripping it?)`);
  process.exit(1);
}
writeFileSync(file, Buffer.concat(parts));
