/** The message scenarios of peer.ts: many messages of odd sizes both ways, and a rendezvous received later. */
import {
  addon, UCX_DESC_COPY, UCX_DESC_DATA, UCX_DESC_RNDV, UCX_SEND_EAGER, UCX_SEND_RNDV,
} from '../../../src/native/addon.js';
import { report, tell } from './channel.js';
import { until } from './kit.js';
import { closeTogether, listen, type Peer } from './peer-common.js';
import { COUNT, LATER_BYTES, SIZES, sizeOf } from './plan.js';

const WINDOW = 8;
const RECV_TOKEN = 1_000_000;

const headerLengthOf = (seq: number, max: number): number => (seq * 37) % (max + 1);
const headerByte = (seq: number, j: number): number => (seq * 11 + j * 3 + 1) & 255;
const payloadByte = (seq: number, i: number): number => (i * 7 + seq * 13 + (i >>> 9)) & 255;

// ------------------------------------------------------------------ messages

function header(seq: number, max: number): Uint8Array {
  const h = new Uint8Array(headerLengthOf(seq, max));
  for (let j = 0; j < h.length; j++) h[j] = headerByte(seq, j);
  if (h.length >= 4) new DataView(h.buffer).setUint32(0, seq, true);
  return h;
}

function payload(seq: number): Uint8Array {
  const p = new Uint8Array(sizeOf(seq));
  for (let i = 0; i < p.length; i++) p[i] = payloadByte(seq, i);
  return p;
}

/** The first wrong byte of message `seq`'s payload at bytes[off, off+len), or -1. */
function badPayloadByte(seq: number, bytes: Uint8Array, off: number, len: number): number {
  for (let i = 0; i < len; i++) if (bytes[off + i] !== payloadByte(seq, i)) return i;
  return -1;
}

/** Both sides send COUNT messages of odd sizes and varied headers, and check the other's. */
export async function messages(p: Peer): Promise<void> {
  const { rank, ep, tracker } = p;
  const max = rank.rings.maxHeader;
  const errors: string[] = [];
  const fail = (text: string): void => void (errors.length < 10 && errors.push(text));
  const paths = { inline: 0, rndv: 0, data: 0, copy: 0, viewed: 0 };
  const inFlight = new Map<number, Uint8Array>();
  const receiving = new Map<number, { seq: number; dest: Uint8Array }>();
  let sent = 0;
  let expected = 0;
  let bytesIn = 0;

  const visit = (inbox: Uint8Array, hOff: number, hLen: number, pOff: number, len: number, descId: number, flags: number): void => {
    const seq = expected++;
    if (hLen >= 4) {
      const got = new DataView(inbox.buffer, hOff, 4).getUint32(0, true);
      if (got !== seq) fail(`message ${seq}: header says ${got} (out of order)`);
    }
    if (hLen !== headerLengthOf(seq, max)) fail(`message ${seq}: header of ${hLen} bytes, ${headerLengthOf(seq, max)} sent`);
    for (let j = 4; j < hLen; j++) {
      if (inbox[hOff + j] !== headerByte(seq, j)) {
        fail(`message ${seq}: header byte ${j} wrong`);
        break;
      }
    }
    if (len !== sizeOf(seq)) fail(`message ${seq}: ${len} bytes, ${sizeOf(seq)} sent`);
    bytesIn += len;
    if (descId < 0) {
      paths.inline++;
      const bad = badPayloadByte(seq, inbox, pOff, len);
      if (bad >= 0) fail(`message ${seq} (inline): payload byte ${bad} wrong`);
      return;
    }
    if (flags & UCX_DESC_RNDV) paths.rndv++;
    else if (flags & UCX_DESC_DATA) paths.data++;
    else if (flags & UCX_DESC_COPY) paths.copy++;
    if ((flags & UCX_DESC_DATA) !== 0 && seq % 2 === 1) {
      // Every other held message is read in place (ucxAmView), then given back; the view must
      // be detached then (a view kept by mistake reads as empty, not as freed memory).
      const view = addon.ucxAmView(rank.worker, descId);
      const bad = badPayloadByte(seq, view, 0, len);
      if (bad >= 0) fail(`message ${seq} (viewed): payload byte ${bad} wrong`);
      addon.ucxAmDiscard(rank.worker, descId, view);
      if (view.byteLength !== 0) fail(`message ${seq}: its view still reads ${view.byteLength} bytes after the discard`);
      paths.viewed++;
      return;
    }
    const dest = new Uint8Array(len);
    const token = RECV_TOKEN + seq;
    const r = addon.ucxAmRecv(rank.worker, descId, dest, 0, len, token);
    if (r < 0) fail(`message ${seq}: ucxAmRecv failed with ${addon.ucxStatusName(r)}`);
    else if (r === 0) checkReceived(seq, dest);
    else receiving.set(token, { seq, dest });
  };
  const checkReceived = (seq: number, dest: Uint8Array): void => {
    const bad = badPayloadByte(seq, dest, 0, dest.length);
    if (bad >= 0) fail(`message ${seq} (descriptor): payload byte ${bad} wrong`);
  };

  const step = (): boolean => {
    while (sent < COUNT && inFlight.size < WINDOW) {
      const seq = sent++;
      const h = header(seq, max);
      const body = payload(seq);
      const flags = body.length > 0 && seq % 7 === 5 ? UCX_SEND_RNDV
        : seq % 7 === 3 && body.length <= SIZES[SIZES.length - 1]! ? UCX_SEND_EAGER : 0;
      const r = addon.ucxAmSend(ep, h, 0, h.length, body, 0, body.length, flags, seq + 1);
      if (r < 0) fail(`send ${seq}: ${addon.ucxStatusName(r)}`);
      if (r === 1) inFlight.set(seq + 1, body);
    }
    tracker.poll();
    rank.drainInbox(visit);
    for (const token of [...inFlight.keys()]) {
      const status = tracker.take(token);
      if (status === undefined) continue;
      if (status !== 0) fail(`send ${token - 1} completed with ${addon.ucxStatusName(status)}`);
      inFlight.delete(token);
    }
    for (const [token, r] of receiving) {
      const status = tracker.take(token);
      if (status === undefined) continue;
      if (status !== 0) fail(`receive of ${r.seq} completed with ${addon.ucxStatusName(status)}`);
      else checkReceived(r.seq, r.dest);
      receiving.delete(token);
    }
    return errors.length > 0 || (sent === COUNT && inFlight.size === 0 && expected === COUNT && receiving.size === 0);
  };
  const started = Date.now();
  await until(step, 'the message exchange', 120_000);
  const ms = Date.now() - started;
  // Failures up to here: once both sides agree they are done, the partner may close and exit
  // before our own close marks the endpoint as closing, and that is no failure.
  const failures = [...tracker.failures];
  await closeTogether(p);
  report({ errors, received: expected, bytesIn, paths, ms, failures });
}

// ------------------------------------------------------------------ rendezvous received later

/** A sends a large message by rendezvous; B receives it only after A saw it still pending, into a buffer it picks then. */
export async function rndvLater(p: Peer): Promise<void> {
  const { rank, ep, tracker } = p;
  if (p.role === 'a') {
    const big = new Uint8Array(LATER_BYTES).map((_, i) => (i * 5 + 3) & 255);
    const dropped = new Uint8Array(1 << 20).fill(9);
    const h = new Uint8Array([0xab, 0xcd]);
    const r1 = addon.ucxAmSend(ep, h, 0, 2, big, 0, big.length, UCX_SEND_RNDV, 1);
    const r2 = addon.ucxAmSend(ep, h, 0, 1, dropped, 0, dropped.length, UCX_SEND_RNDV, 2);
    const r3 = addon.ucxAmSend(ep, h, 1, 1, new Uint8Array([42]), 0, 1, 0, 3);
    await listen(p); // B holds both descriptors and has waited
    const t0 = Date.now();
    await until(() => (tracker.poll(), Date.now() - t0 > 200), 'a pause');
    const pendingBeforeRecv = !tracker.done.has(1) && !tracker.done.has(2);
    tell({ checked: true });
    await until(() => (tracker.poll(), tracker.done.has(1) && tracker.done.has(2) && (r3 === 0 || tracker.done.has(3))), 'the sends');
    await closeTogether(p);
    report({ returned: [r1, r2, r3], pendingBeforeRecv, status1: tracker.take(1), status2: tracker.take(2) });
    return;
  }
  const records: { hLen: number; h0: number; len: number; descId: number; flags: number }[] = [];
  await until(() => {
    tracker.poll();
    rank.drainInbox((inbox, hOff, hLen, _pOff, len, descId, flags) => records.push({ hLen, h0: inbox[hOff]!, len, descId, flags }));
    return records.length === 3;
  }, 'three records');
  const t0 = Date.now();
  await until(() => (tracker.poll(), Date.now() - t0 > 300), 'a pause');
  tell({ holding: true });
  await listen(p); // A looked at its sends
  // Into the middle of a buffer chosen only now; the bytes around it must stay as they are.
  const dest = new Uint8Array(LATER_BYTES + 200).fill(0xee);
  const r = addon.ucxAmRecv(rank.worker, records[0]!.descId, dest, 100, LATER_BYTES, 7);
  addon.ucxAmDiscard(rank.worker, records[1]!.descId);
  let threw = '';
  try {
    addon.ucxAmDiscard(rank.worker, records[1]!.descId);
  } catch (e) {
    threw = (e as Error).message;
  }
  await until(() => (tracker.poll(), r === 0 || tracker.done.has(7)), 'the receive');
  let bad = -1;
  for (let i = 0; i < LATER_BYTES && bad < 0; i++) if (dest[100 + i] !== ((i * 5 + 3) & 255)) bad = i;
  const around = dest.subarray(0, 100).every((v) => v === 0xee) && dest.subarray(100 + LATER_BYTES).every((v) => v === 0xee);
  const status = r === 0 ? 0 : tracker.take(7);
  await closeTogether(p);
  report({ records, recvReturned: r, status, bad, around, secondDiscard: threw });
}
