import type { Debugger } from 'debug';
import { debugPackage } from './trace.js';

/**
 * Puts `[rank N]` on every tsmpi trace line (DEBUG=tsmpi:*) of this process once its rank is
 * known (PMI handshake, or MPI.Init for a singleton), so the merged stderr of a job says which
 * rank wrote what. Only namespaces starting with `tsmpi` are touched: other users of the debug
 * package in the same program keep their lines as they were.
 */
let tag: string | null = null;

export function tagTraceWithRank(rank: number): void {
  const first = tag === null;
  tag = `[rank ${rank}] `;
  const debug = debugPackage();
  if (!first || debug === null) return;
  const format = debug.formatArgs;
  debug.formatArgs = function formatArgs(this: Debugger, args: unknown[]): void {
    // The debug package has applied the %-formatters by now; args[0] is the message text.
    if (tag !== null && this.namespace.startsWith('tsmpi') && typeof args[0] === 'string') args[0] = tag + args[0];
    format.call(this, args);
  };
}
