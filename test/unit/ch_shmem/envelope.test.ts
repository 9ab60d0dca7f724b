// The device envelope (src/mpid/device.ts) through a real ch_shmem pair in one process: two
// ranks' segments and doorbells, rank 0's device sending to rank 1's. Whatever the six header
// words say (packet types, lengths that contradict the payload, negative numbers) they arrive
// unchanged, in order, with the payload the sender gave: the device decides by the hint and the
// length alone. Inline and no-buffer packets stay in the slots at any length; may-buffer data
// above TSMPI_SHORT_MAX goes through the eager ring and reports NO_EAGER_ROOM when it is full.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { readShmemConfig } from '../../../src/ch_shmem/config.js';
import { ShmemDevice } from '../../../src/ch_shmem/device.js';
import { PairLayout } from '../../../src/ch_shmem/layout.js';
import { RankSegment } from '../../../src/ch_shmem/rank-segment.js';
import { Doorbell, PeerBell } from '../../../src/common/doorbell.js';
import {
  HEADER_WORDS, HINT_INLINE, HINT_MAY_BUFFER, HINT_NO_BUFFER, NO_EAGER_ROOM, NO_ROOM, SENT, type PacketSink, type SendHint,
} from '../../../src/mpid/device.js';

const JOB = `envelope${process.pid}`;
const env = {
  TSMPI_SHMEM_SLOTS: '8', TSMPI_SHORT_MAX: '200', TSMPI_EAGER_MAX: '4096', TSMPI_SHMEM_EAGER_BYTES: '8192',
  TSMPI_SHMEM_SINGLE_COPY: '0',
};
const config = readShmemConfig(env);
const layout = new PairLayout(config);
const seg0 = RankSegment.create(`tsmpi-${JOB}-0-rank`, layout.segmentBytes(2), 0);
const seg1 = RankSegment.create(`tsmpi-${JOB}-1-rank`, layout.segmentBytes(2), 1);
const bell0 = Doorbell.create(JOB, 0);
const bell1 = Doorbell.create(JOB, 1);
const sender = new ShmemDevice(config, 0, 2, seg0, [null, RankSegment.attach(seg1.name, 1)], [null, PeerBell.attach(bell1.name, 1)], true);
const receiver = new ShmemDevice(config, 1, 2, seg1, [RankSegment.attach(seg0.name, 0), null], [PeerBell.attach(bell0.name, 0), null], false);
after(() => {
  for (const x of [seg0, seg1, bell0, bell1]) x.unlink();
});

interface Arrival {
  readonly peer: number;
  readonly hdr: number[];
  readonly payload: Uint8Array;
}
const arrivals: Arrival[] = [];
const sink: PacketSink = {
  onPacket(peer, hdr, at, payload, off, len) {
    arrivals.push({ peer, hdr: Array.from(hdr.subarray(at, at + HEADER_WORDS)), payload: payload.slice(off, off + len) });
  },
  onPushComplete() {
    throw new Error('no rendezvous in this test');
  },
  onSendDone() {
    throw new Error('ch_shmem never holds a payload');
  },
};
receiver.init(sink);
sender.init({ onPacket: () => { throw new Error('nothing flows back'); }, onPushComplete: () => undefined, onSendDone: () => undefined });

/** A deterministic pseudo-random stream (xorshift), so a failure can be replayed. */
function stream(seed: number): () => number {
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x | 0;
  };
}

describe('ch_shmem carries the envelope without reading it', () => {
  it('3000 packets of every hint and length arrive in order with their header words and payload unchanged', () => {
    const next = stream(7);
    const hints: SendHint[] = [HINT_INLINE, HINT_MAY_BUFFER, HINT_NO_BUFFER];
    const sent: { hdr: number[]; payload: Uint8Array }[] = [];
    const hdr = new Int32Array(HEADER_WORDS);
    arrivals.length = 0;
    for (let k = 0; k < 3000; k++) {
      const hint = hints[k % 3]!;
      // Inline and no-buffer payloads stay small (a grant, a descriptor), but may exceed TSMPI_SHORT_MAX.
      const len = hint === HINT_MAY_BUFFER ? (next() >>> 0) % 4097 : (next() >>> 0) % 300;
      // Header words that look like mpid's packet types and lengths, and plain noise.
      for (let w = 0; w < HEADER_WORDS; w++) hdr[w] = w === 0 ? (k % 8) | ((next() & 1) << 8) : next();
      const payload = new Uint8Array(len);
      for (let i = 0; i < len; i++) payload[i] = (k * 31 + i) & 0xff;
      let r = sender.sendPacket(1, hdr, payload, 0, len, null, hint);
      for (let tries = 0; r !== SENT; tries++) {
        assert.ok(r === NO_ROOM || (r === NO_EAGER_ROOM && hint === HINT_MAY_BUFFER),
          `packet ${k}: ${r}, but only may-buffer data can find the eager ring full`);
        assert.ok(tries < 100, `packet ${k}: no room after the receiver polled`);
        receiver.poll();
        r = sender.sendPacket(1, hdr, payload, 0, len, null, hint);
      }
      sent.push({ hdr: Array.from(hdr), payload });
    }
    while (arrivals.length < sent.length && receiver.poll() > 0);
    assert.equal(arrivals.length, sent.length);
    for (let k = 0; k < sent.length; k++) {
      assert.equal(arrivals[k]!.peer, 0);
      assert.deepEqual(arrivals[k]!.hdr, sent[k]!.hdr, `packet ${k}: header words`);
      assert.deepEqual(arrivals[k]!.payload, sent[k]!.payload, `packet ${k}: payload of ${sent[k]!.payload.length} bytes`);
    }
    assert.ok(sender.counters.short > 0 && sender.counters.eager > 0, 'may-buffer data went both inline and through the eager ring');
  });

  it('small payloads arrive intact whether the sender gives a whole buffer or a window of a larger one', () => {
    // The slot copy differs by length (word-wise set for whole buffers of 17-32 bytes, a byte
    // loop or a view otherwise) and by whether the payload is the whole buffer: every length
    // around those edges, at odd offsets into a larger buffer too.
    const hdr = new Int32Array(HEADER_WORDS);
    const backing = new Uint8Array(200);
    for (let i = 0; i < backing.length; i++) backing[i] = (i * 7 + 3) & 0xff;
    const expected: Uint8Array[] = [];
    arrivals.length = 0;
    for (let len = 0; len <= 72; len++) {
      for (const off of [0, 1, 5, 8]) {
        const whole = backing.slice(off, off + len);
        for (const [buf, at] of [[whole, 0], [backing, off]] as const) {
          hdr[0] = len;
          hdr[1] = off;
          while (sender.sendPacket(1, hdr, buf, at, len, null, HINT_MAY_BUFFER) !== SENT) receiver.poll();
          expected.push(whole);
        }
      }
      while (receiver.poll() > 0);
    }
    assert.equal(arrivals.length, expected.length);
    for (let k = 0; k < expected.length; k++) {
      assert.deepEqual(arrivals[k]!.payload, expected[k]!, `packet ${k}: ${expected[k]!.length} bytes (offset ${arrivals[k]!.hdr[1]})`);
    }
  });

  it('only may-buffer data goes to the eager ring, and it reports NO_EAGER_ROOM when the ring is full', () => {
    const hdr = new Int32Array(HEADER_WORDS);
    const big = new Uint8Array(4096);
    const eagerBefore = sender.counters.eager;
    // 300 bytes is above TSMPI_SHORT_MAX: inline and no-buffer packets still take the slots.
    assert.equal(sender.sendPacket(1, hdr, big, 0, 300, null, HINT_NO_BUFFER), SENT);
    assert.equal(sender.sendPacket(1, hdr, big, 0, 300, null, HINT_INLINE), SENT);
    assert.equal(sender.counters.eager, eagerBefore);
    while (receiver.poll() > 0);
    // The 8 KiB eager ring holds at most two 4 KiB messages (one, when the first must skip the
    // ring's end); then the next must wait or go by rendezvous.
    let accepted = 0;
    while (sender.sendPacket(1, hdr, big, 0, 4096, null, HINT_MAY_BUFFER) === SENT) {
      accepted++;
      assert.ok(accepted <= 2, 'an 8 KiB eager ring took a third 4 KiB message');
    }
    assert.ok(accepted >= 1);
    assert.equal(sender.sendPacket(1, hdr, big, 0, 4096, null, HINT_MAY_BUFFER), NO_EAGER_ROOM);
    assert.equal(sender.counters.eager, eagerBefore + accepted);
    while (receiver.poll() > 0);
    assert.equal(sender.sendPacket(1, hdr, big, 0, 4096, null, HINT_MAY_BUFFER), SENT, 'room again once the receiver consumed');
    while (receiver.poll() > 0);
  });
});
