/**
 * Direct packing (003b §1): non-contiguous data moved between user memory and the device
 * buffers without a packed copy. Sender and receiver use different types of one signature
 * (vector against contiguous, contiguous against vector, vector against indexed), so a device
 * that mixed up pack and unpack, or entered the stream at a wrong offset in a fragment, shows.
 * Every rank sends to every other at sizes across short, eager, rendezvous and several
 * bounce chunks; many such messages are in flight at once with wildcard receives; a short
 * non-contiguous receive truncates exactly at its end. The path taken (iovec single copy or
 * local gather into the chunks) is checked through the device counters when arg names one.
 *
 * arg: 'iov' (every rendezvous pull between non-contiguous data must be scatter/gather),
 *      'gather' (none may be), or 'any'.
 */
import { MPI } from '../../../src/index.js';
import type { ShmemDevice } from '../../../src/ch_shmem/index.js';
import type { Datatype } from '../../../src/mpir/datatype.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { MTest, fillPattern } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank, size } = comm;
const expectPath = process.argv[2] ?? 'any';
const SENTINEL = 0x5a;
const world = runtime.requireRunning('test');

/** A layout: how `n` doubles sit in memory; all layouts of one test share the signature "n doubles". */
interface Layout {
  readonly name: string;
  /** Datatype and count for n doubles (n a multiple of `unit`). */
  make(n: number): [Datatype, number];
  readonly unit: number;
}

// Large blocks (512 B): the iovec path; small blocks (8 B, 24 B): gathered locally.
const vecBig = MPI.DOUBLE.Create_vector(4, 64, 80).Commit();
const vecSmall = MPI.DOUBLE.Create_vector(32, 1, 3).Commit();
const idx = MPI.DOUBLE.Create_indexed([3, 5, 24], [0, 7, 20]).Commit();
const layouts: Layout[] = [
  { name: 'contiguous', unit: 256, make: (n) => [MPI.DOUBLE, n] },
  { name: 'vector(4x64,80)', unit: 256, make: (n) => [vecBig, n / 256] },
  { name: 'vector(32x1,3)', unit: 32, make: (n) => [vecSmall, n / 32] },
  { name: 'indexed(3,5,24)', unit: 32, make: (n) => [idx, n / 32] },
];

function spanBytes(dt: Datatype, count: number): number {
  return count === 0 ? 16 : (count - 1) * dt.extent + dt.trueUb + 16;
}

/** The receiver's expected buffer: sender data (seed) unpacked into its layout, sentinel around. */
function expected(dt: Datatype, count: number, seed: number, keep: number): Uint8Array {
  const packed = new Uint8Array(count * dt.size);
  fillPattern(packed, seed);
  const out = new Uint8Array(spanBytes(dt, count)).fill(SENTINEL);
  dt.unpackTo(packed, 0, count, 0, Math.min(keep, packed.length), out);
  return out;
}

/** A send buffer whose packed form is the pattern of `seed`. */
function source(dt: Datatype, count: number, seed: number): Uint8Array {
  const packed = new Uint8Array(count * dt.size);
  fillPattern(packed, seed);
  const buf = new Uint8Array(spanBytes(dt, count)).fill(0xee);
  dt.unpackTo(packed, 0, count, 0, packed.length, buf);
  return buf;
}

function firstDiff(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

// Doubles per message: short, eager, rendezvous of 1 chunk, and of several chunks plus a tail.
const sizes = [0, 32, 1024, 16384, 65536 + 256, 4 * 65536 + 512];

// 1. Every pair of layouts, every ordered pair of ranks, by turns (one sender at a time).
for (const send of layouts) {
  for (const recv of layouts) {
    for (const n0 of sizes) {
      const unit = Math.max(send.unit, recv.unit);
      const n = Math.ceil(n0 / unit) * unit;
      const [sdt, scount] = send.make(n);
      const [rdt, rcount] = recv.make(n);
      for (let from = 0; from < size; from++) {
        const seed = from * 1000 + n;
        if (rank === from) {
          const buf = source(sdt, scount, seed);
          for (let to = 0; to < size; to++) if (to !== from) comm.Send([buf, scount, sdt], to, 7);
        } else {
          const dst = new Uint8Array(spanBytes(rdt, rcount)).fill(SENTINEL);
          const status = new MPI.Status();
          comm.Recv([dst, rcount, rdt], from, 7, status);
          const bad = firstDiff(dst, expected(rdt, rcount, seed, n * 8));
          t.check(bad < 0, `${send.name} -> ${recv.name}, ${n} doubles from ${from}: byte ${bad} is ${dst[bad]}`);
          t.equal(status.Get_count(rdt), rcount, `${send.name} -> ${recv.name}, ${n} doubles: Get_count`);
        }
      }
    }
  }
}

// 2. Many non-contiguous messages in flight, wildcard receives, every size at once.
{
  const per = 12;
  const reqs: InstanceType<typeof MPI.Request>[] = [];
  const recvs: { dst: Uint8Array; dt: Datatype; count: number }[] = [];
  for (let k = 0; k < per * (size - 1); k++) {
    const n = 256 * (1 + ((k * 37) % 300));
    const [dt, count] = layouts[1 + (k % 3)]!.make(n);
    const dst = new Uint8Array(spanBytes(dt, count)).fill(SENTINEL);
    recvs.push({ dst, dt, count });
  }
  // Receive k expects message k of its sender: every sender sends messages in the same order,
  // so receive i of sender s is matched by ANY_SOURCE in order per tag (tag = message index).
  for (let k = 0; k < recvs.length; k++) {
    const r = recvs[k]!;
    reqs.push(comm.Irecv([r.dst, r.count, r.dt], MPI.ANY_SOURCE, k));
  }
  const sendBufs: Uint8Array[] = [];
  let k = 0;
  for (let j = 0; j < per; j++) {
    for (let d = 1; d < size; d++) {
      const to = (rank + d) % size;
      // The receiver's k-th receive: each receiver counts its messages the same way.
      const kk = j * (size - 1) + (d - 1);
      const n = 256 * (1 + ((kk * 37) % 300));
      const [dt, count] = layouts[1 + ((kk + 1) % 3)]!.make(n);
      const buf = source(dt, count, 7 * kk + 1);
      sendBufs.push(buf);
      reqs.push(comm.Isend([buf, count, dt], to, kk));
      k++;
    }
  }
  const statuses = reqs.map(() => new MPI.Status());
  MPI.Request.Waitall(reqs, statuses);
  for (let i = 0; i < recvs.length; i++) {
    const r = recvs[i]!;
    const n = r.count * r.dt.size / 8;
    const bad = firstDiff(r.dst, expected(r.dt, r.count, 7 * i + 1, n * 8));
    t.check(bad < 0, `in flight: message ${i} (${n} doubles) from ${statuses[i]!.Get_source()}: byte ${bad}`);
  }
  void k;
}

// 3. Truncation into a non-contiguous receive: what fits arrives, nothing beyond the type.
for (const n of [64, 8192, 65536 + 256]) {
  const short = n / 2;
  for (const recv of layouts.slice(1)) {
    const [rdt, rcount] = recv.make(short - (short % recv.unit));
    if (rank === 0) {
      const buf = source(MPI.DOUBLE, n, 99 + n);
      for (let to = 1; to < size; to++) comm.Send([buf, n, MPI.DOUBLE], to, 9);
    } else {
      const dst = new Uint8Array(spanBytes(rdt, rcount)).fill(SENTINEL);
      let err = 0;
      try {
        comm.Recv([dst, rcount, rdt], 0, 9);
      } catch (e) {
        err = (e as InstanceType<typeof MPI.Exception>).Get_error_class();
      }
      t.equal(err, MPI.ERR_TRUNCATE, `truncation of ${n} doubles into ${recv.name} x ${rcount}: error class`);
      const bad = firstDiff(dst, expected(rdt, rcount, 99 + n, rcount * rdt.size));
      t.check(bad < 0, `truncation of ${n} doubles into ${recv.name} x ${rcount}: byte ${bad} is ${dst[bad]}`);
    }
  }
}

// 4. The path: iovec single copy for big blocks, local gather for small ones.
// ch_shmem does not run when TSMPI_DEVICE=sci forces ch_sci (the any lines).
const shmem = world.device('ch_shmem') as ShmemDevice | null;
const iovPulls = shmem !== null ? shmem.counters.iovPulls : 0;
if (expectPath === 'iov') t.check(iovPulls > 0, `expected scatter/gather pulls, counted ${iovPulls}`);
if (expectPath === 'gather') t.equal(iovPulls, 0, 'scatter/gather pulls with TSMPI_DIRECT_PACK_MIN above every block');

MPI.Finalize();
t.finish(rank);
