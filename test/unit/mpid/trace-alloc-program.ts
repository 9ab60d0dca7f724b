/**
 * Runs point-to-point messages to self (a singleton world: matching, the protocol choice and
 * the self device) under V8's sampling heap profiler, and prints how many bytes tracing
 * allocated (the debug package, the engine's trace helpers, and what they call). Run with and
 * without DEBUG=tsmpi:match,tsmpi:protocol by trace-alloc.test.ts.
 */
import { Session } from 'node:inspector/promises';
import { MPI } from '../../../src/index.js';

const MESSAGES = 50_000;
MPI.Init();
const comm = MPI.COMM_WORLD;
const out = new Uint8Array(64);
const into = new Uint8Array(64);
const pingPong = (n: number) => {
  for (let i = 0; i < n; i++) {
    comm.Send(out, 0, 5);
    comm.Recv(into, 0, 5);
  }
};
pingPong(2_000); // pools and inline caches warm

const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true,
});
pingPong(MESSAGES);
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

interface Node { callFrame: { url: string; functionName: string }; selfSize: number; children: Node[] }
// Bytes allocated by tracing: in the debug package, in the engine's trace helpers, or below
// them. The engine's other allocations (pool bookkeeping and V8's own) are not the subject.
const isTracing = (f: Node['callFrame']) => f.url.includes('/node_modules/debug/') || f.url.endsWith('/trace-rank.js') ||
  (f.url.endsWith('/mpid/engine.js') && f.functionName.startsWith('trace'));
let bytes = 0;
const where = new Map<string, number>();
(function walk(node: Node, underTracing: boolean): void {
  const tracing = underTracing || isTracing(node.callFrame);
  if (tracing && node.selfSize > 0) {
    bytes += node.selfSize;
    const name = `${node.callFrame.functionName} ${node.callFrame.url.split('/').slice(-2).join('/')}`;
    where.set(name, (where.get(name) ?? 0) + node.selfSize);
  }
  for (const c of node.children) walk(c, tracing);
})(profile.head as unknown as Node, false);
MPI.Finalize();
console.log(JSON.stringify({ messages: MESSAGES, bytes, where: [...where].map(([f, b]) => `${f}: ${b}`) }));
