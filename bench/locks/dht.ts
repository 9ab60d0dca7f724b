/**
 * The paper's distributed hashtable (research 001 §6.1, DHT): the "local volume" of one
 * selected process (rank 0) is a window of B buckets of S int32 slots plus a count; P − 1
 * processes (all ranks but 0; rank 0 alone when P = 1) insert and look up random keys. A
 * bucket b is protected by lock b mod L (L locks, --dht-locks, default 4): inserts take it
 * exclusively (Get bucket + Flush, then Put key and count + Flush; a full bucket overwrites
 * slot key mod S), lookups take it shared for RW locks and exclusively otherwise (Get bucket +
 * Flush, scan). An iteration is an insert with probability F_W. The paper times a fixed
 * number of operations; this suite, time-based like the rest, reports operations per second.
 *
 *   node dist/bin/tsmpiexec.js -n 4 node dist/bench/locks/dht.js [--locks ...] [--fw 0,2,5,20] [--dht-locks 4] [--buckets 64]
 */
import { MPI } from '../../src/index.js';
import { isRWLock, type Lock, LockWindow, type RWLock, STAT_FIELDS } from '../../src/locks/index.js';
import { Rng } from './common.js';
import { finish, freshLock, gather, runLocks, start, timedLoop } from './harness.js';

const env = start('dht');
const fws = env.opts.lists.fw ?? (env.opts.smoke ? [20] : [0, 2, 5, 20]);
const nLocks = env.opts.extra['dht-locks'] ?? (env.opts.smoke ? 2 : 4);
const buckets = env.opts.extra.buckets ?? (env.opts.smoke ? 16 : 64);
const SLOTS = 7;
const BUCKET_INTS = SLOTS + 1; // [count, slot0..slot6]
const pts = (variant: string) => fws.map((fw) => ({ variant, param: 'F_W_pct', value: fw }));
const win = new LockWindow(env.comm, env.rank === 0 ? 4 * BUCKET_INTS * buckets : 0);
const bucket = new Int32Array(BUCKET_INTS);
const one = new Int32Array(1);
const worker = env.size === 1 || env.rank !== 0;

function hash(key: number): number {
  return (Math.imul(key, 0x9e3779b1) >>> 0) % buckets;
}

runLocks(env, (spec) => pts(spec.rw ? 'rw' : 'exclusive'), (spec, point, rep) => {
  const fw = point.value / 100;
  const rng = new Rng(1000 * rep + env.rank + 5);
  const locks: Lock[] = [];
  for (let i = 0; i < nLocks; i++) locks.push(freshLock(env, spec));
  const rw = spec.rw && locks.every(isRWLock);
  const r = timedLoop(env, () => {
    const key = rng.int(1, 1 << 20);
    const b = hash(key);
    const lock = locks[b % nLocks]!;
    const at = 4 * BUCKET_INTS * b;
    if (rng.next() < fw) {
      lock.acquire();
      win.win.Get(bucket, 0, [at, BUCKET_INTS, MPI.INT]);
      win.win.Flush(0);
      const count = bucket[0]!;
      let found = false;
      for (let i = 0; i < Math.min(count, SLOTS); i++) if (bucket[1 + i] === key) found = true;
      if (!found) {
        const slot = count < SLOTS ? count : key % SLOTS;
        one[0] = key;
        win.win.Put(one, 0, [at + 4 * (1 + slot), 1, MPI.INT]);
        if (count < SLOTS) win.win.Put(Int32Array.of(count + 1), 0, [at, 1, MPI.INT]);
        win.win.Flush(0);
      }
      lock.release();
    } else {
      if (rw) (lock as RWLock).acquireShared();
      else lock.acquire();
      win.win.Get(bucket, 0, [at, BUCKET_INTS, MPI.INT]);
      win.win.Flush(0);
      let found = false;
      for (let i = 0; i < Math.min(bucket[0]!, SLOTS); i++) if (bucket[1 + i] === key) found = true;
      void found;
      if (rw) (lock as RWLock).releaseShared();
      else lock.release();
    }
  }, worker, () => { for (const l of locks) l.stats.reset(); });
  const stats = new Float64Array(STAT_FIELDS);
  for (const l of locks) stats.forEach((_, i) => (stats[i]! += l.stats.toArray()[i]!));
  const s = gather(env, r, worker, stats);
  for (const l of locks) l.free();
  return s;
}, [...pts('rw')]);
env.comm.Barrier();
win.free();
finish(env);
