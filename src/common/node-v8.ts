import { createRequire } from 'node:module';
import type v8 from 'node:v8';

let loaded: typeof v8 | undefined;

/**
 * node:v8, loaded on its first use rather than at import. Loading it brings Node's stream modules
 * with it (for its heap snapshot streams): 7-11 ms of a rank's start on this machine, which a rank
 * whose Init neither sets V8 flags nor passes objects (one of more ranks than cores) never needs.
 */
export function nodeV8(): typeof v8 {
  return (loaded ??= createRequire(import.meta.url)('node:v8') as typeof v8);
}
