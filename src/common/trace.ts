import { createRequire } from 'node:module';
import type { Debugger, Debug } from 'debug';

/**
 * tsmpi's trace lines (DEBUG=tsmpi:*, the debug package's namespaces), with the package loaded
 * only when DEBUG is set: loading it (and, from an ES module, Node's parse of its CommonJS
 * exports) cost every rank ~5 ms before MPI.Init, which 32 ranks on 2 cores pay 16 times over
 * (bench/launch). Without DEBUG in the environment the debug package enables no namespace, so
 * a trace made without it is one that would be off anyway. (A program that enables namespaces
 * later with debug.enable() does so in its own copy of the package, which never reached ours.)
 */
export type Trace = Debugger;

const require = createRequire(import.meta.url);
let loaded: Debug | null | undefined;

/** The debug package when DEBUG is set (loaded at the first trace made), else null. */
export function debugPackage(): Debug | null {
  if (loaded === undefined) loaded = process.env.DEBUG ? (require('debug') as Debug) : null;
  return loaded;
}

/** A trace for `namespace`: the debug package's when DEBUG is set, else one that is off. */
export function createTrace(namespace: string): Trace {
  const debug = debugPackage();
  return debug !== null ? debug(namespace) : off(namespace);
}

function off(namespace: string): Trace {
  return Object.assign(() => {}, {
    color: '', diff: 0, enabled: false, namespace, log: () => {}, destroy: () => true,
    extend: (sub: string, delimiter = ':') => off(namespace + delimiter + sub),
  });
}
