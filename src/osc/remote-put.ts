// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import type { Request as CoreRequest } from '../mpid/request.js';
import type { World } from '../mpid/world.js';
import type { WindowChannel } from './channel.js';
import { GET, HEADER_BYTES, HEADER_DOUBLES, REMOTE_PUT } from './wire.js';
import { oscCounters } from './counters.js';

/**
 * Remote-put access (003b §3.2c): a large Get whose result lies in our exported memory (MPI.
 * Alloc_mem with info type=shared) is written there by the target's agent, one checked remote
 * write and no data message; its empty reply completes the Get like a data reply would.
 * Origin side: getInto(); target side: serve().
 */
export class RemotePut {
  /** Gets served by remote-put (origin side), and remote-puts written (target side). */
  readonly counters = { gets: 0, written: 0 };

  constructor(private readonly world: World, private readonly channel: WindowChannel) {}

  /**
   * Asks `t` to write `bytes` at byte `offset` of its part (elements of `kind`, `count` of them)
   * into our exported memory `key` at byte `at`; returns the reply's request.
   */
  getInto(t: number, offset: number, count: number, kind: number, key: number, at: number): CoreRequest {
    const id = this.channel.newId();
    const msg = new Uint8Array(HEADER_BYTES + 16);
    const h = new Float64Array(msg.buffer, 0, HEADER_DOUBLES + 2);
    h[0] = id;
    h[1] = offset;
    h[2] = count;
    h[3] = kind;
    h[4] = -1;
    h[5] = REMOTE_PUT;
    h[HEADER_DOUBLES] = key;
    h[HEADER_DOUBLES + 1] = at;
    const reply = this.channel.expectReply(t, id, new Uint8Array(0));
    this.channel.send(t, GET, msg);
    this.counters.gets++;
    oscCounters.remotePutGets++;
    return reply;
  }

  /** Target side: writes mem[offset, offset + bytes) where the GET `msg` from `origin` says, then answers it. */
  serve(origin: number, id: number, msg: Uint8Array, mem: Uint8Array, offset: number, bytes: number): void {
    const where = new Float64Array(msg.buffer, msg.byteOffset + HEADER_BYTES, 2);
    const out = this.world.mapMemory(this.channel.comm.worldRanks[origin]!, where[0]!, where[1]! + bytes);
    out.write(where[1]!, mem, offset, bytes);
    out.release();
    this.counters.written++;
    oscCounters.remotePutsWritten++;
    this.channel.reply(origin, id, new Uint8Array(0));
  }
}
