// The one Node API the Node entry uses, declared here so the package builds without
// @types/node.
declare module 'node:fs' {
  export function readFileSync(path: URL | string): Uint8Array<ArrayBuffer>;
}
