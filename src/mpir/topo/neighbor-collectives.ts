import { nodeV8 } from '../../common/node-v8.js';
import { describe } from '../buffer.js';
import { type Call, type Schedule, decode, decodeV, decodeW, execute, newSchedule } from '../coll/common.js';
import { Intracomm } from '../comm.js';
import { PROC_NULL } from '../constants.js';
import { ErrorClass } from '../error-classes.js';
import { INFO_NULL } from '../info.js';
import type { Prequest, Request } from '../request.js';
import { runtime } from '../runtime.js';
import type { BufSpec, BufSpecV, BufSpecW, InfoArg } from '../types.js';

/** How a neighbour collective runs: blocking (false), non-blocking (true), or persistent (built now, run at each Start). */
type Mode = boolean | 'persistent';

/**
 * Neighbour collectives (Neighbor_allgather, Neighbor_alltoall, their v-variants and non-blocking
 * forms, and the object forms neighbor_allgather / neighbor_alltoall, which send sizes first) are
 * schedules of the collectives engine (coll/schedule.ts): point-to-point on the communicator's
 * collective context (ctx + 1) with its next collective tag, advanced by the engine's progress
 * hook. Each topology says who its neighbours are and in which rounds blocks move
 * (cartcomm.ts, graphcomm.ts, distgraphcomm.ts); this module moves them.
 */

/** One round of a neighbour collective: blocks to receive from and to send to, as (block, rank). */
export interface NeighborRound {
  readonly recvs: ReadonlyArray<readonly [number, number]>;
  readonly sends: ReadonlyArray<readonly [number, number]>;
}

/** A topology communicator: an Intracomm that knows its in- and out-neighbours. */
export abstract class Topocomm extends Intracomm {
  /** The number of blocks of recvbuf (in-neighbours, PROC_NULL included). */
  protected abstract inDegree(): number;
  /** The number of blocks of an alltoall sendbuf (out-neighbours, PROC_NULL included). */
  protected abstract outDegree(): number;
  /** The rounds of a neighbour collective (PROC_NULL entries are skipped). */
  protected abstract neighborRounds(): NeighborRound[];

  /** Collective: each out-neighbour gets sendbuf; block i of recvbuf is what in-neighbour i sent. */
  Neighbor_allgather(sendbuf: BufSpec, recvbuf: BufSpec): void {
    this.neighbor('Neighbor_allgather', sendbuf, recvbuf, false, false);
  }

  /** Collective: block i of sendbuf goes to out-neighbour i; block i of recvbuf comes from in-neighbour i. */
  Neighbor_alltoall(sendbuf: BufSpec, recvbuf: BufSpec): void {
    this.neighbor('Neighbor_alltoall', sendbuf, recvbuf, true, false);
  }

  /** Non-blocking Neighbor_allgather: the buffers belong to MPI until the request completes. */
  Ineighbor_allgather(sendbuf: BufSpec, recvbuf: BufSpec): Request {
    return this.neighbor('Ineighbor_allgather', sendbuf, recvbuf, false, true)!;
  }

  /** Non-blocking Neighbor_alltoall: the buffers belong to MPI until the request completes. */
  Ineighbor_alltoall(sendbuf: BufSpec, recvbuf: BufSpec): Request {
    return this.neighbor('Ineighbor_alltoall', sendbuf, recvbuf, true, true)!;
  }

  /** Collective: like Neighbor_allgather, block i of recvbuf ([buf, [counts, displs], datatype]) sized per in-neighbour. */
  Neighbor_allgatherv(sendbuf: BufSpec, recvbuf: BufSpecV): void {
    this.neighborV('Neighbor_allgatherv', sendbuf, recvbuf, false, false);
  }

  /** Collective: like Neighbor_alltoall with [buf, [counts, displs], datatype] on both sides. */
  Neighbor_alltoallv(sendbuf: BufSpecV, recvbuf: BufSpecV): void {
    this.neighborV('Neighbor_alltoallv', sendbuf, recvbuf, true, false);
  }

  Ineighbor_allgatherv(sendbuf: BufSpec, recvbuf: BufSpecV): Request {
    return this.neighborV('Ineighbor_allgatherv', sendbuf, recvbuf, false, true)!;
  }

  Ineighbor_alltoallv(sendbuf: BufSpecV, recvbuf: BufSpecV): Request {
    return this.neighborV('Ineighbor_alltoallv', sendbuf, recvbuf, true, true)!;
  }

  /**
   * Collective: like Neighbor_alltoallv with one datatype per neighbour and byte displacements:
   * [buf, [counts, displs], datatypes] on both sides.
   */
  Neighbor_alltoallw(sendbuf: BufSpecW, recvbuf: BufSpecW): void {
    this.neighborW('Neighbor_alltoallw', sendbuf, recvbuf, false);
  }

  Ineighbor_alltoallw(sendbuf: BufSpecW, recvbuf: BufSpecW): Request {
    return this.neighborW('Ineighbor_alltoallw', sendbuf, recvbuf, true)!;
  }

  /** Persistent Neighbor_allgather (MPI-4): the schedule is built now and runs at each Start of the Prequest. */
  Neighbor_allgather_init(sendbuf: BufSpec, recvbuf: BufSpec, info: InfoArg = INFO_NULL): Prequest {
    this.checkInfoArg('Neighbor_allgather_init', info);
    return this.neighbor('Neighbor_allgather_init', sendbuf, recvbuf, false, 'persistent') as Prequest;
  }

  /** Persistent Neighbor_alltoall. */
  Neighbor_alltoall_init(sendbuf: BufSpec, recvbuf: BufSpec, info: InfoArg = INFO_NULL): Prequest {
    this.checkInfoArg('Neighbor_alltoall_init', info);
    return this.neighbor('Neighbor_alltoall_init', sendbuf, recvbuf, true, 'persistent') as Prequest;
  }

  /** Persistent Neighbor_allgatherv. */
  Neighbor_allgatherv_init(sendbuf: BufSpec, recvbuf: BufSpecV, info: InfoArg = INFO_NULL): Prequest {
    this.checkInfoArg('Neighbor_allgatherv_init', info);
    return this.neighborV('Neighbor_allgatherv_init', sendbuf, recvbuf, false, 'persistent') as Prequest;
  }

  /** Persistent Neighbor_alltoallv. */
  Neighbor_alltoallv_init(sendbuf: BufSpecV, recvbuf: BufSpecV, info: InfoArg = INFO_NULL): Prequest {
    this.checkInfoArg('Neighbor_alltoallv_init', info);
    return this.neighborV('Neighbor_alltoallv_init', sendbuf, recvbuf, true, 'persistent') as Prequest;
  }

  /** Persistent Neighbor_alltoallw. */
  Neighbor_alltoallw_init(sendbuf: BufSpecW, recvbuf: BufSpecW, info: InfoArg = INFO_NULL): Prequest {
    this.checkInfoArg('Neighbor_alltoallw_init', info);
    return this.neighborW('Neighbor_alltoallw_init', sendbuf, recvbuf, 'persistent') as Prequest;
  }

  /** The call descriptor of one neighbour collective: blocking (false), non-blocking (true) or persistent. */
  private neighborCall(name: string, mode: Mode): Call {
    return { comm: this, core: this.live(name), world: runtime.requireRunning(name), name, persistent: mode === 'persistent' };
  }

  /** The w-variant: blocks of per-neighbour datatypes at byte displacements (packed when non-contiguous). */
  private neighborW(name: string, sendbuf: unknown, recvbuf: unknown, mode: Mode): Request | undefined {
    const c = this.neighborCall(name, mode);
    const recv = decodeW(c, recvbuf, 'recvbuf', this.inDegree());
    const send = decodeW(c, sendbuf, 'sendbuf', this.outDegree());
    const recvBlock = (i: number): Uint8Array => recv.data.subarray(recv.off[i]!, recv.off[i]! + recv.len[i]!);
    const sendBlock = (j: number): Uint8Array => send.data.subarray(send.off[j]!, send.off[j]! + send.len[j]!);
    return execute(c, this.neighborSchedule(c, sendBlock, recvBlock), mode !== false);
  }

  /** The v-variants: blocks where counts and displs (in elements of the datatype) put them. */
  private neighborV(name: string, sendbuf: unknown, recvbuf: unknown, alltoall: boolean, mode: Mode): Request | undefined {
    const c = this.neighborCall(name, mode);
    const recv = decodeV(c, recvbuf, 'recvbuf', this.inDegree());
    const recvBlock = (i: number): Uint8Array =>
      recv.data.subarray(recv.displs[i]! * recv.datatype.size, (recv.displs[i]! + recv.counts[i]!) * recv.datatype.size);
    let sendBlock: (j: number) => Uint8Array;
    if (alltoall) {
      const send = decodeV(c, sendbuf, 'sendbuf', this.outDegree());
      sendBlock = (j) => send.data.subarray(send.displs[j]! * send.datatype.size, (send.displs[j]! + send.counts[j]!) * send.datatype.size);
    } else {
      const send = decode(c, sendbuf, 'sendbuf').bytes;
      sendBlock = () => send;
    }
    return execute(c, this.neighborSchedule(c, sendBlock, recvBlock), mode !== false);
  }

  /**
   * Builds the schedule of a neighbour collective (coll/schedule.ts: the communicator's next
   * collective tag on ctx + 1) and runs it, or returns its Request. Messages to ourselves are
   * local copies, paired in order within a round.
   */
  private neighbor(name: string, sendbuf: unknown, recvbuf: unknown, alltoall: boolean, mode: Mode): Request | undefined {
    const c = this.neighborCall(name, mode);
    const send = decode(c, sendbuf, 'sendbuf').bytes;
    const recv = decode(c, recvbuf, 'recvbuf').bytes;
    const nIn = this.inDegree();
    const nOut = this.outDegree();
    let block = send.length;
    if (alltoall) {
      if (nOut > 0 && send.length % nOut !== 0) {
        this.fail(name, ErrorClass.ERR_COUNT, `sendbuf of ${send.length} bytes does not split into ${nOut} equal blocks`);
      }
      block = nOut === 0 ? 0 : send.length / nOut;
    }
    // Blocks have one size everywhere (the standard's matching type signatures): recvbuf holds
    // the in-neighbours' blocks one after the other from its start.
    if (recv.length < nIn * block) {
      this.fail(name, ErrorClass.ERR_BUFFER, `recvbuf of ${recv.length} bytes holds less than ${nIn} blocks of ${block} bytes`);
    }
    const sendBlock = (j: number): Uint8Array => (alltoall ? send.subarray(j * block, (j + 1) * block) : send);
    const recvBlock = (i: number): Uint8Array => recv.subarray(i * block, (i + 1) * block);
    return execute(c, this.neighborSchedule(c, sendBlock, recvBlock), mode !== false);
  }

  /** Collective: each out-neighbour gets obj; the values of the in-neighbours, in order (null for MPI.PROC_NULL). */
  neighbor_allgather<T>(obj: T): Array<T | null> {
    const bytes = nodeV8().serialize(obj);
    return this.neighborObjects('neighbor_allgather', () => bytes) as Array<T | null>;
  }

  /** Collective: objs[i] goes to out-neighbour i; the values of the in-neighbours, in order (null for MPI.PROC_NULL). */
  neighbor_alltoall<T>(objs: readonly T[]): Array<T | null> {
    const nOut = this.outDegree();
    if (!Array.isArray(objs) || objs.length !== nOut) {
      this.fail('neighbor_alltoall', ErrorClass.ERR_ARG, `objs must be an array of ${nOut} values (one per out-neighbour), ` +
        `got ${Array.isArray(objs) ? `${objs.length} values` : describe(objs)}`);
    }
    const bytes = objs.map((o) => nodeV8().serialize(o));
    return this.neighborObjects('neighbor_alltoall', (j) => bytes[j]!) as Array<T | null>;
  }

  /** Object forms: the sizes first (one int32 per block), then the serialized values. */
  private neighborObjects(name: string, sendBytes: (j: number) => Uint8Array): unknown[] {
    const c: Call = { comm: this, core: this.live(name), world: runtime.requireRunning(name), name };
    const nIn = this.inDegree();
    const nOut = this.outDegree();
    const sendSizes = new Int32Array(nOut);
    for (let j = 0; j < nOut; j++) sendSizes[j] = sendBytes(j).length;
    const sizes = new Int32Array(nIn).fill(-1);
    const sendSizeBytes = new Uint8Array(sendSizes.buffer);
    const sizeBytes = new Uint8Array(sizes.buffer);
    execute(c, this.neighborSchedule(c, (j) => sendSizeBytes.subarray(4 * j, 4 * j + 4),
      (i) => sizeBytes.subarray(4 * i, 4 * i + 4)), false);
    const received = Array.from(sizes, (n) => (n < 0 ? null : new Uint8Array(n)));
    execute(c, this.neighborSchedule(c, sendBytes, (i) => received[i]!), false);
    return received.map((b) => (b === null ? null : nodeV8().deserialize(b)));
  }

  /** One schedule of a neighbour collective: block i of the receive side from in-neighbour i, block j to out-neighbour j. */
  private neighborSchedule(c: Call, sendBlock: (j: number) => Uint8Array, recvBlock: (i: number) => Uint8Array): Schedule {
    const name = c.name;
    const me = c.core.rank;
    const s = newSchedule(c);
    for (const round of this.neighborRounds()) {
      s.round();
      const selfRecvs: number[] = [];
      const selfSends: number[] = [];
      for (const [i, r] of round.recvs) {
        if (r === me) selfRecvs.push(i);
        else if (r !== PROC_NULL) s.recv(recvBlock(i), r);
      }
      for (const [j, r] of round.sends) {
        if (r === me) selfSends.push(j);
        else if (r !== PROC_NULL) s.send(sendBlock(j), r);
      }
      if (selfRecvs.length !== selfSends.length) {
        this.fail(name, ErrorClass.ERR_TOPOLOGY, `this process is its own in-neighbour ${selfRecvs.length} times but its ` +
          `own out-neighbour ${selfSends.length} times`);
      }
      for (let k = 0; k < selfRecvs.length; k++) {
        const to = recvBlock(selfRecvs[k]!);
        const from = sendBlock(selfSends[k]!);
        if (to.length !== from.length) {
          this.fail(name, ErrorClass.ERR_COUNT, `this process sends itself ${from.length} bytes where ${to.length} are expected`);
        }
        s.local(() => to.set(from));
      }
    }
    return s;
  }
}
