import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tsmpiexec } from '../helpers.js';

/**
 * The start gate (bin/launcher/start-gate.ts): every rank waits in a shell until all ranks are
 * spawned, then becomes its program. The program must not see the gate (descriptor 9 closed),
 * must keep the pid tsmpiexec knows (its state reports and signals go to it), and must get its
 * arguments unchanged, quotes and spaces included.
 */
describe('tsmpiexec start gate', () => {
  it('a rank becomes its program with the pid, arguments and descriptors it would have had', { timeout: 60_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsmpi-gate-'));
    const script = path.join(dir, 'probe.mjs');
    fs.writeFileSync(script, [
      "import fs from 'node:fs';",
      // Node reuses descriptor 9 itself (its epoll), so the gate shows as a socket no one else has.
      "const known = new Set(['0', '1', '2', process.env.PMI_FD]);",
      "const sockets = fs.readdirSync('/proc/self/fd').filter((f) => !known.has(f) && (() => { try { return fs.readlinkSync(`/proc/self/fd/${f}`).startsWith('socket:'); } catch { return false; } })());",
      "const gate = sockets.length === 0 ? 'closed' : `open: ${sockets.join(',')}`;",
      "const pmi = process.env.PMI_FD === undefined ? 'none' : (fs.fstatSync(Number(process.env.PMI_FD)).isSocket() ? 'socket' : 'other');",
      "const comm = fs.readFileSync('/proc/self/comm', 'utf8').trim();",
      'console.log(JSON.stringify({ rank: Number(process.env.PMI_RANK), pid: process.pid, args: process.argv.slice(2), gate, pmi, comm }));',
    ].join('\n'));
    try {
      const r = await tsmpiexec(['-n', '4', 'node', script, 'a b', "it's", '$HOME', ''], 50_000);
      assert.equal(r.status, 0, r.stderr);
      const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { rank: number; pid: number; args: string[]; gate: string; pmi: string; comm: string });
      assert.deepEqual(rows.map((x) => x.rank).sort(), [0, 1, 2, 3]);
      for (const x of rows) {
        assert.deepEqual(x.args, ['a b', "it's", '$HOME', ''], `rank ${x.rank}: arguments`);
        assert.equal(x.gate, 'closed', `rank ${x.rank}: the gate's descriptor reached the program`);
        assert.equal(x.pmi, 'socket', `rank ${x.rank}: PMI socket`);
        assert.equal(x.comm, 'node', `rank ${x.rank}: the shell was replaced by the program`);
      }
      assert.equal(new Set(rows.map((x) => x.pid)).size, 4);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a rank that fails at once still ends the job, named, and a missing program is named', { timeout: 60_000 }, async () => {
    const r = await tsmpiexec(['-n', '3', 'node', '-e', 'process.exit(process.env.PMI_RANK === "1" ? 3 : 0)'], 50_000);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /rank 1 \(pid \d+\) exited with status 3/);
    const missing = await tsmpiexec(['-n', '3', 'no-such-program-tsmpi'], 50_000);
    assert.equal(missing.status, 127, missing.stderr);
    assert.match(missing.stderr, /cannot start "no-such-program-tsmpi"/);
  });
});
