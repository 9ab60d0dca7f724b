import { createRequire } from 'node:module';
import type v8 from 'node:v8';

let loaded: typeof v8 | undefined;

/**
 * node:v8 (tasks and results travel as its structured clones), loaded on the first task rather
 * than when tsmpi is imported: the package's runtime is one file, so a top-level import here
 * would load node:v8 and the stream modules it brings (7-11 ms) in every rank of every program.
 * (The runtime's own lazy node:v8 is src/common/node-v8.ts; futures uses only the public API.)
 */
export function serializer(): typeof v8 {
  return (loaded ??= createRequire(import.meta.url)('node:v8') as typeof v8);
}
