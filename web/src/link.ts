/**
 * Share links: `k1.` + base64url(JSON {v, spec, inputs, t}). URL-safe, versioned by
 * the prefix; the core version that made it travels inside (`v`).
 * @module
 */

/** The link format this version writes and reads. */
export const LINK_FORMAT = 1;
const PREFIX = `k${LINK_FORMAT}.`;

/** What a link carries: the spec given to the core, the input log and the time reached. */
export interface LinkPayload {
  /** Core version that made the link (informational). */
  v: string;
  spec: Record<string, unknown>;
  inputs: unknown[];
  t: number;
}

export function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new TypeError('malformed link: the part after the version prefix is not base64url');
  }
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TypeError('malformed link: the encoded text is not UTF-8');
  }
}

export function encodeLink(payload: LinkPayload): string {
  return PREFIX + toBase64Url(JSON.stringify(payload));
}

/**
 * Finds the link token in a bare token or in a URL (`...?run=k1.xxx`, `...#k1.xxx`) and
 * decodes it. Errors say what is wrong.
 */
export function decodeLink(link: unknown): LinkPayload {
  if (typeof link !== 'string') {
    throw new TypeError(`a link must be a string, got ${link === null ? 'null' : typeof link}`);
  }
  const m = /(?:^|[#?&=/])k(\d+)\.([^&#?\s/]*)/.exec(link.trim());
  if (!m) {
    throw new TypeError(
      `malformed link: expected a token starting with '${PREFIX}' (on its own or in a URL), got ${JSON.stringify(
        link.length > 40 ? link.slice(0, 37) + '...' : link,
      )}`,
    );
  }
  const format = Number(m[1]);
  if (format !== LINK_FORMAT) {
    throw new Error(
      `incompatible link: it uses link format k${m[1]}, and this version of kraft-playground reads only ` +
        `k${LINK_FORMAT} links; open it with the version of the playground that made it`,
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(fromBase64Url(m[2]));
  } catch (e) {
    if (e instanceof TypeError && e.message.startsWith('malformed link')) throw e;
    throw new TypeError('malformed link: it does not decode to JSON (was it cut short?)');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new TypeError('malformed link: the decoded JSON is not an object');
  }
  const p = payload as Record<string, unknown>;
  for (const k of Object.keys(p)) {
    if (!['v', 'spec', 'inputs', 't'].includes(k)) {
      throw new TypeError(`malformed link: unknown field '${k}'; a k${LINK_FORMAT} link has v, spec, inputs, t`);
    }
  }
  if (typeof p.spec !== 'object' || p.spec === null || Array.isArray(p.spec)) {
    throw new TypeError('malformed link: spec must be an object');
  }
  if (!Array.isArray(p.inputs)) throw new TypeError('malformed link: inputs must be an array');
  if (typeof p.t !== 'number' || !Number.isSafeInteger(p.t) || p.t < 0) {
    throw new TypeError('malformed link: t must be a whole number of milliseconds >= 0');
  }
  return {
    v: typeof p.v === 'string' ? p.v : 'unknown',
    spec: p.spec as Record<string, unknown>,
    inputs: p.inputs,
    t: p.t,
  };
}
