/**
 * The iov scenario of peer.ts (ucxAmSendIov, ucxAmRecvIov): A sends messages gathered from
 * pieces of one buffer (every other block of a strided layout, odd block sizes), as rendezvous
 * and eagerly; B receives each into pieces of its own with another layout (blocks of another
 * size, with gaps), so a byte that lands in the wrong piece, or a gap that is written, shows.
 */
import { addon, UCX_DESC_RNDV, UCX_SEND_EAGER, UCX_SEND_RNDV } from '../../../src/native/addon.js';
import { report } from './channel.js';
import { until } from './kit.js';
import { closeTogether, type Peer } from './peer-common.js';

/**
 * [message bytes, sender's block, receiver's block, rendezvous]; the eager one is larger than
 * the inbox takes inline, so it is held in a descriptor and scattered from there.
 */
function casesFor(inlineMax: number): [number, number, number, boolean][] {
  return [
    [1 << 20, 4096, 65536, true],
    [300_001, 777, 1000, true],
    [65_536, 8192, 3, true],
    [inlineMax + 1001, 10, 333, false],
  ];
}
const GAP = 5;
const FILL = 0xee;

/** (address, length) pairs of `total` bytes in blocks of `block` with GAP bytes between, inside `buf`. */
function pieces(buf: Uint8Array, total: number, block: number): Float64Array {
  const base = addon.addressOf(buf);
  const pairs: number[] = [];
  for (let done = 0, at = 0; done < total; at += block + GAP) {
    const n = Math.min(block, total - done);
    pairs.push(base + at, n);
    done += n;
  }
  return Float64Array.from(pairs);
}

const spanOf = (total: number, block: number): number => Math.ceil(total / block) * (block + GAP);
const byteOf = (m: number, i: number): number => (i * 13 + m * 7 + (i >>> 8)) & 255;

export async function iov(p: Peer): Promise<void> {
  const { rank, ep, tracker } = p;
  const CASES = casesFor(rank.rings.inlineMax);
  if (p.role === 'a') {
    let token = 10;
    for (let m = 0; m < CASES.length; m++) {
      const [total, block, , rndv] = CASES[m]!;
      const buf = new Uint8Array(spanOf(total, block)).fill(FILL);
      const pairs = pieces(buf, total, block);
      for (let k = 0, i = 0; k < pairs.length; k += 2) {
        const off = pairs[k]! - addon.addressOf(buf);
        for (let j = 0; j < pairs[k + 1]!; j++) buf[off + j] = byteOf(m, i++);
      }
      const t = token++;
      const r = addon.ucxAmSendIov(ep, new Uint8Array([m]), 0, 1, pairs, pairs.length >> 1, buf,
        rndv ? UCX_SEND_RNDV : UCX_SEND_EAGER, t);
      if (r < 0) throw new Error(`iov send ${m}: ${addon.ucxStatusName(r)}`);
      if (r === 1) await until(() => (tracker.poll(), tracker.done.has(t)), `the send of message ${m}`, 30_000);
      tracker.take(t);
    }
    await closeTogether(p);
    report({});
    return;
  }
  const results: { m: number; rndv: boolean; wrong: number; gapsWritten: number }[] = [];
  let m = 0;
  while (m < CASES.length) {
    let record: { m: number; descId: number; len: number; flags: number; inline: boolean } | null = null;
    await until(() => {
      tracker.poll();
      rank.drainInbox((inbox, hOff, _hLen, _pOff, len, descId, flags) => {
        record = { m: inbox[hOff]!, descId, len, flags, inline: descId < 0 };
      });
      return record !== null;
    }, `message ${m}`, 30_000);
    const got = record!;
    const [total, , block] = CASES[got.m]!;
    const buf = new Uint8Array(spanOf(total, block)).fill(FILL);
    const pairs = pieces(buf, total, block);
    if (got.inline) throw new Error(`message ${got.m} of ${got.len} bytes arrived inline; the scenario needs a descriptor`);
    const t = 100 + m;
    const r = addon.ucxAmRecvIov(rank.worker, got.descId, pairs, pairs.length >> 1, buf, t);
    if (r < 0) throw new Error(`iov receive ${got.m}: ${addon.ucxStatusName(r)}`);
    if (r === 1) await until(() => (tracker.poll(), tracker.done.has(t)), `the receive of message ${got.m}`, 30_000);
    tracker.take(t);
    let wrong = 0;
    let gapsWritten = 0;
    const base = addon.addressOf(buf);
    let i = 0;
    let end = 0;
    for (let k = 0; k < pairs.length; k += 2) {
      const off = pairs[k]! - base;
      for (let j = end; j < off; j++) if (buf[j] !== FILL) gapsWritten++;
      for (let j = 0; j < pairs[k + 1]!; j++) if (buf[off + j] !== byteOf(got.m, i++)) wrong++;
      end = off + pairs[k + 1]!;
    }
    results.push({ m: got.m, rndv: (got.flags & UCX_DESC_RNDV) !== 0, wrong, gapsWritten });
    m++;
  }
  await closeTogether(p);
  report({ results });
}
