/**
 * Share links: `k2.` + base64url(DEFLATE(JSON {v, spec, inputs, t})). URL-safe,
 * versioned by the prefix; the core version that made it travels inside (`v`). Links of
 * format 1 (`k1.` + base64url(JSON), no compression) are still read. In the browser a
 * module of its own, loaded by `init()` (links.ts).
 * @module
 */
import { deflateSync, Inflate } from 'fflate';
import { cap } from './check.js';
import { LINK_FORMAT, type LinkPayload } from './links.js';

export type { LinkPayload };

/** The formats this version reads: 1 (plain JSON) and 2 (DEFLATE-compressed JSON). */
const READS = [1, 2];
const PREFIX = `k${LINK_FORMAT}.`;
/** Most bytes of JSON a link may carry once decoded (about 300,000 actions). */
export const MAX_LINK_JSON_BYTES = 16 * 1024 * 1024;
/** Deepest nesting of arrays and objects a link may have (a real one has 5 levels). */
export const MAX_LINK_DEPTH = 32;
/** How much compressed data is inflated at a time, so a link that inflates past the
 * limit is stopped within a few MB of work. */
const INFLATE_SLICE = 4096;

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new TypeError('malformed link: the part after the version prefix is not base64url');
  }
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

function tooLong(bytes: number): RangeError {
  return new RangeError(`link too long: it carries more than ${bytes} bytes once decoded; a link carries at most ` + `${MAX_LINK_JSON_BYTES} bytes of JSON`);
}

/** Inflates a k2 payload, refusing one that inflates past {@link MAX_LINK_JSON_BYTES}. */
function inflate(bytes: Uint8Array): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    if (total > MAX_LINK_JSON_BYTES) throw tooLong(MAX_LINK_JSON_BYTES);
    chunks.push(chunk);
  });
  try {
    for (let i = 0; i < bytes.length || i === 0; i += INFLATE_SLICE) {
      inflater.push(bytes.subarray(i, i + INFLATE_SLICE), i + INFLATE_SLICE >= bytes.length);
    }
  } catch (e) {
    if (e instanceof RangeError && e.message.startsWith('link too long')) throw e;
    throw new TypeError('malformed link: its data does not decompress (was it cut short?)');
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The nesting depth of a JSON value, walked without recursion; stops past `limit`. */
function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > limit) return true;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}

export function encodeLink(payload: LinkPayload): string {
  return PREFIX + toBase64Url(deflateSync(new TextEncoder().encode(JSON.stringify(payload)), { level: 9 }));
}

/**
 * Finds the link token in a bare token or in a URL (`...#run=k2.xxx`, `...?run=k1.xxx`)
 * and decodes it. Errors say what is wrong.
 */
export function decodeLink(link: unknown): LinkPayload {
  if (typeof link !== 'string') {
    throw new TypeError(`a link must be a string, got ${link === null ? 'null' : typeof link}`);
  }
  const m = /(?:^|[#?&=/])k(\d+)\.([^&#?\s/]*)/.exec(link.trim());
  if (!m) {
    throw new TypeError(`malformed link: expected a token starting with '${PREFIX}' (on its own or in a URL), got ${JSON.stringify(cap(link))}`);
  }
  const format = Number(m[1]);
  if (!READS.includes(format)) {
    throw new Error(
      `incompatible link: it uses link format k${cap(m[1])}, and this version of kraft-playground reads only ` +
        `${READS.map((f) => `k${f}`).join(' and ')} links; open it with the version of the playground that made it`,
    );
  }
  // base64 makes 3 bytes 4 characters; compressed data is never much larger than its JSON
  if (m[2].length > Math.ceil((MAX_LINK_JSON_BYTES * 4) / 3) + 4) throw tooLong(Math.floor((m[2].length * 3) / 4));
  const data = format === 1 ? fromBase64Url(m[2]) : inflate(fromBase64Url(m[2]));
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new TypeError('malformed link: the encoded text is not UTF-8');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new TypeError('malformed link: it does not decode to JSON (was it cut short?)');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new TypeError('malformed link: the decoded JSON is not an object');
  }
  if (depthOver(payload, MAX_LINK_DEPTH)) {
    throw new RangeError(`malformed link: its JSON nests arrays and objects more than ${MAX_LINK_DEPTH} levels deep; a link's actions nest at most a few levels`);
  }
  const p = payload as Record<string, unknown>;
  for (const k of Object.keys(p)) {
    if (!['v', 'spec', 'inputs', 't'].includes(k)) {
      throw new TypeError(`malformed link: unknown field '${cap(k)}'; a link has v, spec, inputs, t`);
    }
  }
  if (typeof p.spec !== 'object' || p.spec === null || Array.isArray(p.spec)) {
    throw new TypeError('malformed link: spec must be an object');
  }
  if (!Array.isArray(p.inputs)) throw new TypeError('malformed link: inputs must be an array');
  if (typeof p.t !== 'number' || !Number.isSafeInteger(p.t) || p.t < 0) {
    throw new TypeError(`malformed link: t must be a whole number of milliseconds from 0 to ${Number.MAX_SAFE_INTEGER}, got ` + `${typeof p.t === 'number' ? p.t : typeof p.t}`);
  }
  return {
    v: typeof p.v === 'string' ? cap(p.v) : 'unknown',
    spec: p.spec as Record<string, unknown>,
    inputs: p.inputs,
    t: p.t,
  };
}
