import fs from 'node:fs';
import type { World } from '../mpid/world.js';
import type { PendingOperation } from '../mpid/pending.js';
import { createTrace } from '../common/trace.js';
import { installStateRequest, STATE_SIGNAL, type StateContext } from '../mpid/state-request.js';
import { calledFunction, captureStack, parseFrames, userFrame } from './call-site.js';

const trace = createTrace('tsmpi:mpir');

/**
 * A rank's answer to a state request (kill -USR2, or tsmpiexec before it stops a job), written
 * to stderr in one piece:
 *
 *   tsmpi: rank 0 (pid 4242): blocked in Intracomm.Recv at /home/u/app.js:12:8
 *   tsmpi: rank 0 (pid 4242):   recv from rank 1, tag 42, 16-byte buffer, on MPI_COMM_WORLD: posted, no message matched yet
 *   tsmpi: rank 0 (pid 4242): 1 pending request, 0 unexpected messages
 *
 * The last line ends every report (tsmpiexec waits for it). Built only when asked for.
 */
export function installStateReport(currentWorld: () => World | null, phase: () => string): void {
  const installed = installStateRequest((context) => {
    const world = currentWorld();
    const rank = world?.rank ?? Number(process.env.PMI_RANK ?? 0);
    const who = `tsmpi: rank ${rank} (pid ${process.pid})`;
    const lines = [`${who}: ${where(context, world, phase())}`];
    const ops = world?.engine.describePending() ?? [];
    for (const op of ops) lines.push(`${who}:   ${describeOperation(op)}`);
    const unexpected = ops.filter((o) => o.kind === 'unexpected').length;
    const requests = ops.length - unexpected;
    lines.push(`${who}: ${plural(requests, 'pending request')}, ${plural(unexpected, 'unexpected message')}`);
    writeAll(2, `${lines.join('\n')}\n`);
  });
  if (!installed) trace('the program listens for %s itself; no state reports', STATE_SIGNAL);
}

function where(context: StateContext, world: World | null, phase: string): string {
  if (context === 'blocked') {
    const frames = parseFrames(captureStack());
    const call = calledFunction(frames) ?? 'an MPI call';
    const user = userFrame(frames);
    return `blocked in ${call}${user !== null ? ` at ${user.location}` : ''}`;
  }
  if (world === null) return phase === 'finalized' ? 'MPI is finalized' : 'MPI is not initialized (no MPI.Init yet)';
  const awaited = world.progress.awaitedCount;
  return awaited > 0 ? `not in a blocking call: awaiting ${plural(awaited, 'MPI operation')} (event loop idle)`
    : 'not in a blocking MPI call (awaiting something else, or running JavaScript)';
}

/** A context id as the communicator it belongs to (default names: comm#<ctx>, as Comm gives them). */
export function contextName(ctx: number): string {
  const base = ctx - (ctx % 2);
  const name = base === 0 ? 'MPI_COMM_WORLD' : base === 2 ? 'MPI_COMM_SELF' : `comm#${base}`;
  return ctx % 2 === 0 ? name : `${name} (collective)`;
}

export function describeOperation(op: PendingOperation): string {
  const on = contextName(op.ctx);
  const tag = op.tag === -1 ? 'any tag' : `tag ${op.tag}`;
  if (op.kind === 'recv') {
    const from = op.peer === -2 ? 'any source' : `rank ${op.peer}`;
    const size = op.bytes < 0 ? 'buffer sized on arrival' : `${op.bytes}-byte buffer`;
    return `recv from ${from}, ${tag}, ${size}, on ${on}: ${op.state}`;
  }
  if (op.kind === 'send') {
    // mpid knows a destination as a world rank; on COMM_WORLD that is the rank the user wrote.
    const to = op.ctx < 2 ? `rank ${op.peer}` : `world rank ${op.peer}`;
    return `send to ${to}, ${tag}, ${op.bytes} bytes, on ${on}: ${op.state}`;
  }
  return `unexpected message from rank ${op.peer}, ${tag}, ${op.bytes} bytes, on ${on}: ${op.state}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Writes all of `text` to `fd` now, also from inside a blocking call (stderr may be non-blocking). */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let off = 0;
  for (let again = 0; off < bytes.length && again < 10_000;) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      again++;
    }
  }
}
