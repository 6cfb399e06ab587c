/**
 * Where the share-link codec (link.ts, with its DEFLATE) comes from. Node's entry has it
 * at once; the browser's loads it in {@link init}, beside the core, as a module of its
 * own: a page that shows a run before it makes or opens a link (the element's first
 * frame) loads the core alone and the codec after.
 * @module
 */
/** The link format this version writes. */
export const LINK_FORMAT = 2;

/** What a link carries: the spec given to the core, the input log and the time reached. */
export interface LinkPayload {
  /** Core version that made the link (informational). */
  v: string;
  spec: Record<string, unknown>;
  inputs: unknown[];
  t: number;
}

/** @internal What reads and writes the links. */
export interface LinkCodec {
  encodeLink(payload: LinkPayload): string;
  decodeLink(link: unknown): LinkPayload;
}

let from: LinkCodec | (() => Promise<LinkCodec>) | null = null;
let codec: LinkCodec | null = null;
let loading: Promise<LinkCodec> | null = null;

/** @internal Set by the entry point: the codec itself (Node), or how to import it (the browser). */
export function setLinkCodec(source: LinkCodec | (() => Promise<LinkCodec>)): void {
  from = source;
  if (typeof source !== 'function') codec = source;
}

/** @internal Loads the codec (once; a failed load lets a later call try again). */
export function loadLinks(): Promise<LinkCodec> {
  if (codec) return Promise.resolve(codec);
  if (!loading) {
    const load = from;
    if (typeof load !== 'function') return Promise.reject(new Error('kraft-playground: no way to load the share-link codec here'));
    const p = load().then((m) => {
      codec = m;
      return m;
    });
    p.catch(() => {
      if (loading === p) loading = null;
    });
    loading = p;
  }
  return loading;
}

/** @internal True once the codec is here. */
export function hasLinks(): boolean {
  return codec !== null;
}

/** @internal The codec; throws when it is not loaded yet. */
export function links(): LinkCodec {
  if (codec === null) throw new Error('kraft-playground: the share-link codec is not loaded yet; await init() (or Cluster.create) first');
  return codec;
}
