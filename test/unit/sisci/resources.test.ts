// ch_sci's resource cache and the DMA binding over the SISCI emulation, in one process
// (its segments are connected through the emulated adapter like another node's), with
// TSMPI_SCI_MAX_CONNECTIONS=2 so the adapter runs out: lru evicts the least recently released
// resource and retries; with everything in use acquire() gives null rather than failing; null
// frees on release. DMA: a posted transfer arrives, wakes the futex cell it was given, and
// refuses misaligned offsets and more entries than the queue holds.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { sweepJobSegments } from '../../../src/common/segment-names.js';

const job = `sciRsrc${process.pid}`;
process.env.TSMPI_JOBID = job;
process.env.TSMPI_SCI_NODE = '0';
process.env.TSMPI_SCI_MAX_CONNECTIONS = '2';
delete process.env.TSMPI_SCI_FAULTS;
const sisci = await import('../../../src/sisci/index.js');
const { ResourceCache } = await import('../../../src/ch_sci/resources.js');

const d = sisci.Descriptor.open();
const node = d.nodeId();
const segments = [11, 12, 13, 14].map((id) => {
  const s = d.createSegment(id, 8192);
  s.setAvailable();
  return s;
});

after(() => {
  for (const s of segments) s.remove();
  d.close();
  sweepJobSegments(job);
});

describe('ch_sci resource cache', () => {
  it('lru keeps released resources until the adapter runs out, then evicts the oldest', () => {
    const cache = new ResourceCache(d, 'lru');
    const a = cache.acquire(node, 11, 0, 'eager', 0, 4096)!;
    a.map.words[0] = 1234;
    cache.release(a);
    const b = cache.acquire(node, 12, 0, 'eager', 0, 4096)!;
    cache.release(b);
    assert.equal(cache.cached, 2);
    const again = cache.acquire(node, 11, 0, 'eager', 0, 4096)!;
    assert.equal(again, a, 'a cached resource comes back as it was');
    assert.equal(again.map.words[0], 1234);
    cache.release(again);
    // 12 is now the least recently released: the third segment evicts it.
    const c = cache.acquire(node, 13, 0, 'pool', 0, 8192)!;
    assert.notEqual(c, null);
    assert.equal(cache.counters.evictions, 1);
    assert.equal(cache.acquire(node, 11, 0, 'eager', 0, 4096), a, '11 survived the eviction');
    // Both connections in use: nothing to evict, so no resource (and no exception).
    assert.equal(cache.acquire(node, 14, 0, 'pool', 0, 8192), null);
    assert.equal(cache.counters.exhausted, 1);
    cache.release(c);
    const dRes = cache.acquire(node, 14, 0, 'pool', 0, 8192);
    assert.notEqual(dRes, null, 'after a release the request succeeds by evicting it');
    assert.deepEqual({ ...cache.counters }, { hits: 2, misses: 4, evictions: 2, exhausted: 1, freed: 2 });
    cache.release(a);
    cache.release(dRes!);
    cache.clear();
    assert.equal(cache.cached, 0);
  });

  it('a resource held twice stays in use until both release it', () => {
    const cache = new ResourceCache(d, 'lru');
    const a = cache.acquire(node, 11, 1, 'pool', 0, 8192)!;
    assert.equal(cache.acquire(node, 11, 1, 'pool', 0, 8192), a);
    assert.equal(a.users, 2);
    cache.release(a);
    assert.equal(cache.cached, 0);
    cache.release(a);
    assert.equal(cache.cached, 1);
    cache.clear();
  });

  it('null frees on every release: every acquire connects again', () => {
    const cache = new ResourceCache(d, 'null');
    for (let i = 0; i < 5; i++) cache.release(cache.acquire(node, 12, 0, 'eager', 0, 4096)!);
    assert.equal(cache.cached, 0);
    assert.deepEqual({ ...cache.counters }, { hits: 0, misses: 5, evictions: 0, exhausted: 0, freed: 5 });
  });
});

describe('DMA queue', () => {
  it('moves data, wakes the given futex cell, and refuses what the adapter cannot do', () => {
    const local = segments[0]!;
    const remote = d.connect(node, 12, 1000);
    const src = local.map();
    const dst = remote.map();
    for (let i = 0; i < 1024; i++) src.words[i] = i * 3 + 1;
    const cells = new Int32Array(new SharedArrayBuffer(8));
    const q = d.createDmaQueue(2);
    q.enqueue(local, 0, remote, 1024, 4096);
    q.post({ cells, index: 0 });
    assert.equal(q.wait(10_000), sisci.DMA_DONE);
    for (let i = 0; i < 1024; i++) assert.equal(dst.words[256 + i], i * 3 + 1, `word ${i}`);
    // The callback runs on the library's thread after the state changed: give it a moment.
    const deadline = Date.now() + 2000;
    while (Atomics.load(cells, 0) === 0 && Date.now() < deadline) Atomics.wait(cells, 1, 0, 5);
    assert.equal(Atomics.load(cells, 0), 1, 'completion bumped the cell');
    q.reset();
    assert.throws(() => q.enqueue(local, 4, remote, 0, 64), (e: unknown) => e instanceof sisci.SisciError &&
      e.code === 'SCI_ERR_OFFSET_ALIGNMENT');
    q.enqueue(local, 0, remote, 0, 64);
    q.enqueue(local, 64, remote, 64, 64);
    assert.throws(() => q.enqueue(local, 128, remote, 128, 64), (e: unknown) => e instanceof sisci.SisciError &&
      e.code === 'SCI_ERR_MAX_ENTRIES');
    q.post();
    assert.equal(q.wait(10_000), sisci.DMA_DONE);
    q.reset();
    q.remove();
    src.unmap();
    dst.unmap();
    remote.disconnect();
  });
});
