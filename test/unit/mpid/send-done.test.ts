// Standard sends that need no request (Engine.isendStandard), with a stand-in device that records
// what it was asked to send and answers as told: a send the device copied at once returns the
// engine's one completed send, takes nothing from the request pool and carries no sender request
// in its header; a full ring, a payload the device may hold, and a send behind a parked one each
// take the full way, and the order to a peer stays as posted. The real devices are exercised by
// the multi-rank point-to-point tests (mpi/pt2pt).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  HINT_MAY_BUFFER, NO_EAGER_ROOM, NO_ROOM, SENT, SENT_HOLDING, type Device, type DeviceLimits, type PacketSink, type SendResult,
} from '../../../src/mpid/device.js';
import { Engine } from '../../../src/mpid/engine.js';
import { PKT_EAGER, PKT_RTS, W_SREQ, W_TAG, W_TYPE } from '../../../src/mpid/hdr/packet.js';
import { NO_SENDER_REQUEST, STATE_DONE } from '../../../src/mpid/request.js';

interface Sent { type: number; hint: number; tag: number; sreq: number; len: number; holdId: number | undefined }

class StandInDevice implements Device {
  readonly name = 'stand-in';
  readonly sent: Sent[] = [];
  /** sendPacket calls, answered or not. */
  asked = 0;
  /** What the next sendPacket calls answer; SENT once this runs out. */
  answers: SendResult[] = [];
  private sink: PacketSink | null = null;

  constructor(readonly limits: DeviceLimits) {}

  init(sink: PacketSink): void {
    this.sink = sink;
  }

  sendPacket(_peer: number, hdr: Int32Array, _payload: Uint8Array | null, _off: number, len: number,
             _packed: unknown, hint: number, holdId?: number): SendResult {
    this.asked++;
    const answer = this.answers.shift() ?? SENT;
    if (answer === NO_ROOM || answer === NO_EAGER_ROOM) return answer;
    this.sent.push({ type: hdr[W_TYPE]! & 0xff, hint, tag: hdr[W_TAG]!, sreq: hdr[W_SREQ]!, len, holdId });
    return answer;
  }

  /** The device is done reading a payload it held. */
  release(holdId: number): void {
    this.sink!.onSendDone(holdId);
  }

  poll(): number {
    return 0;
  }

  describeSource(): object | null {
    return null;
  }

  pull(): boolean {
    return false;
  }

  expectPush(): void {}
  startPush(): void {}
  disconnect(): void {}
  close(): void {}
}

function engineWith(limits: DeviceLimits): { engine: Engine; device: StandInDevice } {
  const device = new StandInDevice(limits);
  // World rank 0 talks to peer 1 through the stand-in (peer 0, itself, is never addressed here).
  const engine = new Engine(0, [device], [device, device]);
  return { engine, device };
}

const bytes = (n: number, first: number): Uint8Array => new Uint8Array(n).fill(first);

describe('Engine.isendStandard: sends that complete inside the call', () => {
  it('a send the device copies returns the completed send, takes no request and names no sender request', () => {
    const { engine, device } = engineWith({ eagerMax: 4096, rndvDescWords: 0 });
    const before = engine.requests.created;
    for (let i = 0; i < 100; i++) {
      const r = engine.isendStandard(bytes(i % 7, i), 1, 5, 0, i);
      assert.equal(r, engine.sendDone);
      engine.free(r);
    }
    assert.equal(engine.requests.created, before, 'no request was made for a send the device copied');
    assert.equal(engine.sendDone.state, STATE_DONE, 'freeing the completed send leaves it complete');
    assert.deepEqual(device.sent.map((s) => s.tag), Array.from({ length: 100 }, (_, i) => i));
    assert.ok(device.sent.every((s) => s.type === PKT_EAGER && s.hint === HINT_MAY_BUFFER && s.sreq === NO_SENDER_REQUEST &&
      s.holdId === undefined), 'eager packets, no sender request, no holdId');
    const fresh = engine.requests.acquire(1);
    assert.notEqual(fresh, engine.sendDone, 'the completed send never enters the pool');
    engine.requests.release(fresh);
  });

  it('a full ring parks a real request, and sends after it wait behind it in order', () => {
    const { engine, device } = engineWith({ eagerMax: 4096, rndvDescWords: 0 });
    device.answers = [NO_ROOM];
    const a = engine.isendStandard(bytes(8, 1), 1, 5, 0, 1);
    assert.notEqual(a, engine.sendDone, 'the first send could not go and is a request of its own');
    assert.notEqual(a.state, STATE_DONE);
    assert.equal(device.asked, 1, 'a full ring is not asked again within the same send');
    const b = engine.isendStandard(bytes(8, 2), 1, 5, 0, 2);
    assert.notEqual(b, engine.sendDone, 'the second one may not overtake the parked first');
    assert.equal(device.asked, 1, 'a send behind a parked one waits without asking the device');
    assert.equal(device.sent.length, 0);
    engine.progress();
    assert.deepEqual(device.sent.map((s) => s.tag), [1, 2], 'sent in the order they were posted');
    assert.equal(a.state, STATE_DONE);
    assert.equal(b.state, STATE_DONE);
    assert.ok(device.sent.every((s) => s.sreq >= 0), 'parked sends carry their own request ids');
    const c = engine.isendStandard(bytes(8, 3), 1, 5, 0, 3);
    assert.equal(c, engine.sendDone, 'with nothing parked, the next send goes at once again');
  });

  it('a payload the device may hold keeps a request of its own until the device lets it go', () => {
    const { engine, device } = engineWith({ eagerMax: 65536, rndvDescWords: 0, holdMin: 1024 });
    const small = engine.isendStandard(bytes(1023, 7), 1, 5, 0, 1);
    assert.equal(small, engine.sendDone, 'below holdMin the device copies');
    device.answers = [SENT_HOLDING];
    const held = engine.isendStandard(bytes(1024, 9), 1, 5, 0, 2);
    assert.notEqual(held, engine.sendDone);
    assert.equal(device.sent[1]!.holdId, held.id, 'the device was given a holdId to report back with');
    assert.notEqual(held.state, STATE_DONE, 'not complete while the device reads the user buffer');
    device.release(held.id);
    assert.equal(held.state, STATE_DONE);
  });

  it('eager buffers that are full send the message by rendezvous, asking the device once for each', () => {
    const { engine, device } = engineWith({ eagerMax: 4096, rndvDescWords: 0 });
    device.answers = [NO_EAGER_ROOM];
    const r = engine.isendStandard(bytes(2000, 1), 1, 5, 0, 1);
    assert.notEqual(r, engine.sendDone);
    assert.equal(device.asked, 2, 'once eager, once the request to send');
    assert.equal(device.sent.length, 1);
    assert.equal(device.sent[0]!.type, PKT_RTS);
    assert.equal(device.sent[0]!.sreq, r.id);
    assert.equal(engine.counters.eagerFallbacks, 1);
    assert.equal(engine.sentTotal('eager', 'messages'), 0);
    assert.equal(engine.sentTotal('rndv', 'messages'), 1);
  });

  it('a message above eagerMax takes the full way (rendezvous)', () => {
    const { engine, device } = engineWith({ eagerMax: 64, rndvDescWords: 0 });
    const r = engine.isendStandard(bytes(65, 1), 1, 5, 0, 1);
    assert.notEqual(r, engine.sendDone);
    assert.equal(device.sent[0]!.type, PKT_RTS);
    assert.equal(device.sent[0]!.sreq, r.id, 'the receiver answers the request to send with this id');
    assert.notEqual(r.state, STATE_DONE, 'a rendezvous completes when the receiver has the data');
  });
});
