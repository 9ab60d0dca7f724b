// ch_sci's short protocol (src/ch_sci/short-ring.ts) between two processes on two emulated SCI
// nodes (test/unit/sisci/ring-peer.ts): thousands of messages of every length a message may
// carry through a small ring (so it wraps, skips its end and runs out of credits), once without
// faults and once with 1 % of sequence errors, corrupted bytes and late stores injected by the
// emulation. Nothing may be lost, duplicated, reordered or corrupted; with faults the sender's
// retries and the receiver's CRC mismatches show that the faults happened and were repaired.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

import { sweepJobSegments } from '../../../src/common/segment-names.js';
import { DIST } from '../../helpers.js';

const PEER = path.join(DIST, 'test', 'unit', 'sisci', 'ring-peer.js');

function run(role: string, node: string, env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, [PEER, role, ...args], {
    env: { ...env, TSMPI_SCI_NODE: node }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 75_000, killSignal: 'SIGKILL',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr.on('data', (b) => { err += b; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code: code ?? -1, out, err })));
}

describe('ch_sci short protocol over the SISCI emulation', () => {
  for (const faults of ['', 'seq=0.01,corrupt=0.01,late=0.01,seed=5']) {
    it(faults === '' ? 'without faults' : `with faults ${faults}`, { timeout: 90_000 }, async () => {
      const job = `ring${faults === '' ? 'clean' : 'faulty'}${process.pid}`;
      const env: NodeJS.ProcessEnv = { ...process.env, TSMPI_JOBID: job };
      if (faults === '') delete env.TSMPI_SCI_FAULTS;
      else env.TSMPI_SCI_FAULTS = faults;
      const args = ['4000', '16'];
      const [rx, tx] = await Promise.all([run('recv', '1', env, args), run('send', '0', env, args)]);
      sweepJobSegments(job);
      assert.equal(rx.code, 0, `receiver failed:\n${rx.out}\n${rx.err}`);
      assert.equal(tx.code, 0, `sender failed:\n${tx.out}\n${tx.err}`);
      const r = JSON.parse(rx.out) as { received: number; crcMismatches: number };
      const s = JSON.parse(tx.out) as { messages: number; retries: number; creditReads: number; skips: number };
      assert.equal(r.received, 4000);
      assert.equal(s.messages, 4000);
      assert.ok(s.skips > 0 && s.creditReads > 0, `the ring wrapped and ran out of credits: ${tx.out}`);
      if (faults !== '') assert.ok(s.retries > 10, `sequence errors were retried: ${tx.out}`);
      else assert.equal(s.retries, 0);
    });
  }
});
