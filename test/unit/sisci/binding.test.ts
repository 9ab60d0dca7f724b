// src/sisci over the SISCI emulation, with a second process as the other SCI node
// (test/unit/sisci/peer.ts, TSMPI_SCI_NODE=1): connect to its segment, read its pattern through
// the remote map, write through a checked sequence, trigger its interrupt; SisciError with the
// SCI error name for a missing segment and a busy removal; injected sequence faults reported by
// check() and counted; nothing left in /dev/shm after the job's sweep.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

import { sweepJobSegments } from '../../../src/common/segment-names.js';
import { DIST } from '../../helpers.js';

const PEER = path.join(DIST, 'test', 'unit', 'sisci', 'peer.js');
const job = `sciTs${process.pid}`;
process.env.TSMPI_JOBID = job;
process.env.TSMPI_SCI_NODE = '0';
delete process.env.TSMPI_SCI_FAULTS;
const sisci = await import('../../../src/sisci/index.js');

describe('src/sisci over the emulation', () => {
  it('two nodes: remote map, checked write, interrupt', { timeout: 30_000 }, async () => {
    const d = sisci.Descriptor.open();
    assert.equal(d.nodeId(), 4);
    const child = spawn(process.execPath, [PEER], { env: { ...process.env, TSMPI_SCI_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => { out += b; });
    child.stderr.on('data', (b) => { err += b; });
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    const remote = d.connect(8, 5, 10_000);
    assert.equal(remote.size, 4096);
    assert.ok(d.probe(8), 'node 8 is alive while the peer has SISCI open');
    const map = remote.map();
    for (let i = 0; i < 1024; i++) assert.equal(map.words[i], i * 7, `remote word ${i}`);
    const seq = map.sequence();
    assert.equal(seq.start(), sisci.SEQ_OK);
    seq.write(0, new Uint8Array(Int32Array.of(777).buffer));
    seq.storeBarrier();
    assert.equal(seq.check(), sisci.SEQ_OK);
    assert.throws(() => remote.disconnect(), (e: unknown) => e instanceof sisci.SisciError && e.code === 'SCI_ERR_BUSY',
      'disconnecting a mapped segment');
    const intr = d.connectInterrupt(8, 3, 5000);
    intr.trigger();
    intr.disconnect();
    seq.remove();
    map.unmap();
    remote.disconnect();
    assert.equal(await exited, 0, `peer failed:\n${out}\n${err}`);
    assert.match(out, /peer ok/);
    d.close();
  });

  it('errors name the call and the SCI error', { timeout: 10_000 }, () => {
    const d = sisci.Descriptor.open();
    assert.throws(() => d.connect(8, 99, 20), (e: unknown) => e instanceof sisci.SisciError &&
      e.code === 'SCI_ERR_NO_SUCH_SEGMENT' && /SCIConnectSegment\(node 8, segment 99\): SCI_ERR_NO_SUCH_SEGMENT/.test(e.message));
    const seg = d.createSegment(7, 64);
    assert.throws(() => d.createSegment(7, 64), (e: unknown) => e instanceof sisci.SisciError && e.code === 'SCI_ERR_SEGMENTID_USED');
    assert.throws(() => seg.map(2, 8), (e: unknown) => e instanceof sisci.SisciError && e.code === 'SCI_ERR_OFFSET_ALIGNMENT');
    const m = seg.map();
    assert.throws(() => seg.remove(), (e: unknown) => e instanceof sisci.SisciError && e.code === 'SCI_ERR_BUSY');
    m.unmap();
    seg.remove();
    d.close();
  });

  it('injected sequence faults are reported and counted', { timeout: 20_000 }, async () => {
    // The fault settings are read at SCIInitialize, so this runs in a fresh process.
    const script = `
      const s = await import(${JSON.stringify(path.join(DIST, 'src', 'sisci', 'index.js'))});
      const d = s.Descriptor.open();
      const seg = d.createSegment(11, 256); seg.setAvailable();
      const r = d.connect(4, 11, 1000); const m = r.map(); const q = m.sequence();
      let retriable = 0;
      for (let i = 0; i < 50; i++) { q.start(); q.write(0, new Uint8Array(16)); if (q.check() === s.SEQ_RETRIABLE) retriable++; }
      const c = s.faultCounters();
      q.remove(); m.unmap(); r.disconnect(); seg.remove(); d.close();
      console.log(JSON.stringify({ retriable, c }));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TSMPI_SCI_FAULTS: 'seq=0.5,corrupt=0.2,seed=3' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => { out += b; });
    child.stderr.on('data', (b) => { err += b; });
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
    assert.equal(code, 0, err);
    const { retriable, c } = JSON.parse(out) as { retriable: number; c: { sequenceErrors: number; corruptedBytes: number } };
    assert.ok(c.sequenceErrors > 5 && c.corruptedBytes > 2, `counters ${JSON.stringify(c)}`);
    assert.ok(retriable >= c.sequenceErrors, `${retriable} retriable checks for ${c.sequenceErrors} injected errors`);
    assert.ok(retriable < 50, 'every check failed');
  });

  it('an interrupt relay wakes a thread asleep on a futex cell when another node triggers', { timeout: 20_000 }, async () => {
    const { addon } = await import('../../../src/native/addon.js');
    const d = sisci.Descriptor.open();
    const intr = d.createInterrupt(9);
    const cells = new Int32Array(new SharedArrayBuffer(8));
    const relay = intr.relay(cells, 0);
    // Node 8 triggers interrupt 9 of node 4 after 300 ms, while this thread sleeps on the cell.
    const script = `
      const s = await import(${JSON.stringify(path.join(DIST, 'src', 'sisci', 'index.js'))});
      const d = s.Descriptor.open();
      const r = d.connectInterrupt(4, 9, 5000);
      await new Promise((f) => setTimeout(f, 300));
      r.trigger(); r.disconnect(); d.close();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TSMPI_SCI_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (b) => { err += b; });
    const t0 = Date.now();
    let woke = '';
    while (Atomics.load(cells, 0) === 0 && Date.now() - t0 < 10_000) woke = addon.futexWait(cells, 0, 0, 10_000);
    const waited = Date.now() - t0;
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
    assert.equal(code, 0, err);
    assert.equal(Atomics.load(cells, 0), 1, 'the relay bumped the cell once');
    assert.ok(waited < 5000, `woken after ${waited} ms (${woke}); a relay that does not wake would sleep 10 s`);
    assert.equal(relay.stop(), 1, 'one trigger relayed');
    intr.remove();
    d.close();
  });

  it('leaves nothing behind but the liveness words the sweep removes', () => {
    for (const s of sweepJobSegments(job)) assert.match(s, /-sci-\d+-a0$/, `left behind: ${s}`);
  });
});
