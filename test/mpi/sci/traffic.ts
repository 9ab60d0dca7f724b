/**
 * ch_sci under load: every rank sends every other rank messages of every protocol (short,
 * eager, rendezvous of one and of several rounds; odd sizes on each side of each threshold;
 * contiguous and a vector type packed straight into the remote buffers), all in flight at once,
 * half of them received with MPI.ANY_SOURCE; every byte is checked, and per-pair order too.
 * Then the device counters of all ranks are summed at rank 0 and checked against what the
 * configuration must have caused, named by the arguments:
 *   faults    TSMPI_SCI_FAULTS is set: the emulation injected faults and ch_sci wrote again
 *   evict     TSMPI_SCI_MAX_CONNECTIONS is small: the resource cache had to evict (lru) or
 *             freed every resource on release (null), and no message failed
 *   dma       TSMPI_SCI_DMA_MIN is set: rendezvous blocks went by DMA
 *   thread    TSMPI_PROGRESS=thread: control messages triggered interrupts
 */
import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import type { SciDevice } from '../../../src/ch_sci/index.js';
import { faultCounters } from '../../../src/sisci/index.js';
import { MTest, fillPattern, findPatternError } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const expect = new Set(process.argv.slice(2));
const world = runtime.requireRunning('test');
const sci = world.device('ch_sci') as SciDevice | null;

const SIZES = [0, 1, 87, 88, 89, 599, 600, 601, 1000, 4099, 32767, 32768, 32769, 100_003, 600_001, 1_300_007];
const ROUNDS = 2;

// 1. Contiguous messages, every size, all in flight; even rounds received from a wildcard source.
const seedOf = (src: number, dst: number, i: number) => (src * 131 + dst * 17 + i * 7) & 0xff;
const requests: InstanceType<typeof MPI.Request>[] = [];
const checks: (() => void)[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < SIZES.length; k++) {
    const i = round * SIZES.length + k;
    for (let peer = 0; peer < size; peer++) {
      if (peer === rank) continue;
      const out = new Uint8Array(SIZES[k]!);
      fillPattern(out, seedOf(rank, peer, i));
      requests.push(comm.Isend(out, peer, i));
    }
  }
}
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < SIZES.length; k++) {
    const i = round * SIZES.length + k;
    for (let peer = 0; peer < size; peer++) {
      if (peer === rank) continue;
      const into = new Uint8Array(SIZES[k]!);
      const status = new MPI.Status();
      // A wildcard source may match any sender's message with this tag: the status says whose.
      const r = comm.Irecv(into, round % 2 === 0 ? MPI.ANY_SOURCE : peer, i);
      requests.push(r);
      checks.push(() => {
        r.Wait(status);
        const src = status.Get_source();
        const bad = findPatternError(into, seedOf(src, rank, i));
        t.check(bad < 0, `message ${i} (${SIZES[k]} bytes) from ${src}: byte ${bad} is wrong`);
        t.equal(status.Get_count(MPI.BYTE), SIZES[k], `message ${i} from ${src}: count`);
      });
    }
  }
}
for (const check of checks) check();
MPI.Request.Waitall(requests);

// 2. A vector type (every other double): packed into the slice / pool and unpacked from it.
const vector = MPI.DOUBLE.Create_vector(40_001, 1, 2).Commit();
for (const n of [3, 100, 40_001]) {
  const next = (rank + 1) % size;
  const prev = (rank + size - 1) % size;
  const src = new Float64Array(2 * n);
  for (let j = 0; j < src.length; j++) src[j] = rank * 1e6 + j;
  const dst = new Float64Array(2 * n).fill(-1);
  const type = n === 40_001 ? vector : MPI.DOUBLE.Create_vector(n, 1, 2).Commit();
  comm.Sendrecv([src, 1, type], next, 5, [dst, 1, type], prev, 5);
  let bad = -1;
  for (let j = 0; j < dst.length; j++) {
    const want = j % 2 === 0 ? prev * 1e6 + j : -1;
    if (dst[j] !== want) {
      bad = j;
      break;
    }
  }
  t.check(bad < 0, `vector of ${n} doubles from ${prev}: element ${bad} is ${dst[bad]}`);
  if (type !== vector) type.Free();
}
vector.Free();

// 3. The counters of every rank, summed at rank 0.
const names = ['short', 'eager', 'blocks', 'dmaBlocks', 'retries', 'faults', 'evictions', 'misses', 'freed', 'interrupts',
  'resourceWaits', 'crcMismatches'] as const;
const mine = new Float64Array(names.length);
if (sci !== null) {
  const c = sci.counters;
  const ring = sci.ringCounters();
  const f = faultCounters();
  const cache = sci.cache.counters;
  mine.set([c.short, c.eager, c.blocks, c.dmaBlocks, ring.retries + c.dataRetries + c.dmaRetries,
    f.sequenceErrors + f.corruptedBytes + f.lateStores, cache.evictions, cache.misses, cache.freed, c.interrupts,
    c.resourceWaits, ring.crcMismatches]);
}
const sum = new Float64Array(names.length);
comm.Reduce(mine, sum, MPI.SUM, 0);
if (rank === 0) {
  const total = Object.fromEntries(names.map((n, i) => [n, sum[i]!])) as Record<(typeof names)[number], number>;
  console.log(`# ch_sci counters, all ranks: ${names.map((n) => `${n}=${total[n]}`).join(' ')}`);
  t.check(total.short > 0 && total.eager > 0 && total.blocks > 0,
    'short, eager and rendezvous each carried messages over ch_sci (is ch_sci in use?)');
  if (expect.has('faults')) {
    t.check(total.faults > 0, 'the emulation injected faults');
    t.check(total.retries > 0, 'ch_sci wrote again after failed sequence checks');
  }
  if (expect.has('evict')) {
    t.check(total.evictions > 0 || (total.freed === total.misses && total.misses > 0),
      'the resource cache evicted (lru) or freed on every release (null)');
  }
  if (expect.has('dma')) t.check(total.dmaBlocks > 0, 'rendezvous blocks went by DMA');
  if (expect.has('thread')) t.check(total.interrupts > 0, 'control messages triggered interrupts');
}
MPI.Finalize();
t.finish(rank);
