// One side of short-ring.test.ts, run as a child process (argv: send|recv, messages, slots).
// The receiver (SCI node 8) exports its ring region as segment 20 and checks that message k
// arrives k-th, with kind k mod 16, its six header words and the payload pattern of k; the
// sender (node 4) sends messages of every length up to the largest a message may carry. Each
// prints its counters as JSON.
import { ShortRingReceiver, ShortRingSender, regionBytes } from '../../../src/ch_sci/short-ring.js';
import { Descriptor } from '../../../src/sisci/index.js';
import { removeWhenFree } from './remove-when-free.js';

const [role, countText, slotsText] = process.argv.slice(2);
const count = Number(countText);
const slots = Number(slotsText);
const pattern = (k: number, i: number) => (k * 31 + i * 7) & 0xff;
const d = Descriptor.open();

if (role === 'recv') {
  const seg = d.createSegment(20, regionBytes(slots));
  const map = seg.map();
  const rx = new ShortRingReceiver(map, slots);
  seg.setAvailable();
  let next = 0;
  const t0 = Date.now();
  while (next < count) {
    rx.poll((kind, hdr, at, bytes, off, len) => {
      if (hdr[at + 3] !== next) throw new Error(`message ${next}: tag ${hdr[at + 3]} (lost, duplicated or reordered)`);
      if (hdr[at + 4] !== len) throw new Error(`message ${next}: length ${len}, header says ${hdr[at + 4]}`);
      if (kind !== next % 16) throw new Error(`message ${next}: kind ${kind}, sent ${next % 16}`);
      for (const w of [0, 1, 2, 5]) {
        if (hdr[at + w] !== next * 7 + w) throw new Error(`message ${next}: header word ${w} is ${hdr[at + w]}`);
      }
      for (let i = 0; i < len; i++) {
        if (bytes[off + i] !== pattern(next, i)) throw new Error(`message ${next}: payload byte ${i} is ${bytes[off + i]}`);
      }
      next++;
    });
    if (Date.now() - t0 > 60_000) throw new Error(`only ${next} of ${count} messages in 60 s`);
  }
  process.stdout.write(JSON.stringify({ received: next, ...rx.counters }) + '\n');
  // Stay until the sender disconnected, then clean up.
  map.unmap();
  await removeWhenFree(seg);
} else {
  const remote = d.connect(8, 20, 10_000);
  const map = remote.map();
  const seq = map.sequence();
  const tx = new ShortRingSender(map, seq, slots);
  const hdr = new Int32Array(6);
  const buf = new Uint8Array(tx.maxPayload);
  for (let k = 0; k < count; k++) {
    const len = (k * 37) % (tx.maxPayload + 1);
    for (let i = 0; i < len; i++) buf[i] = pattern(k, i);
    for (const w of [0, 1, 2, 5]) hdr[w] = k * 7 + w;
    hdr[3] = k;
    hdr[4] = len;
    const t0 = Date.now();
    while (!tx.send(k % 16, hdr, buf, 0, len)) {
      // The receiver frees slots; if it died, give up instead of spinning forever.
      if (Date.now() - t0 > 30_000) throw new Error(`message ${k}: no room in the ring for 30 s`);
    }
  }
  process.stdout.write(JSON.stringify(tx.counters) + '\n');
  seq.remove();
  map.unmap();
  remote.disconnect();
}
d.close();
