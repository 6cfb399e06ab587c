// The one Node API the Node entry uses, declared here so the package builds without
// @types/node.
declare module 'node:fs/promises' {
  export function readFile(path: URL | string): Promise<Uint8Array>;
}
