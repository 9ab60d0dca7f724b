import { ANY_SOURCE, ANY_TAG, MODE_STANDARD, STATE_DONE, type Request as CoreRequest } from '../mpid/request.js';
import type { World } from '../mpid/world.js';
import { headerOnly, HEADER_DOUBLES, POSTED_TAG } from './wire.js';

/**
 * What the API face hands the window layer of the window's group: two duplicates of the
 * communicator the window was made on (requests to the agents on one context, replies on the
 * other, so a reply never matches the agent's any-source receive), and the few collectives
 * window creation, Fence and Free need, done by mpir's collectives (the shm_counter barrier
 * among them). osc knows no communicator: only these numbers and calls.
 */
export interface WindowComm {
  readonly rank: number;
  readonly size: number;
  /** World rank of each member, by rank in the window. */
  readonly worldRanks: Int32Array;
  /** Context id of requests (agent receives, request kinds as tags). */
  readonly requestCtx: number;
  /** Context id of replies (operation ids as tags) and POSTED. */
  readonly replyCtx: number;
  barrier(): void;
  allgather(mine: Float64Array, all: Float64Array): void;
  /** Root's string on every rank (a node segment's name). */
  bcastName(name: string | null, root: number): string;
  /** Frees the two communicators (the last step of Free). */
  free(): void;
}

/**
 * The window's point-to-point traffic, through mpid's engine: requests to a target's agent,
 * replies back, POSTED and COMPLETE of post/start. A request message is ours (scratch or
 * copied), so it is sent to completion before send() returns; a reply is sent detached (the
 * agent runs inside progress) and its request freed once done.
 */
export class WindowChannel {
  private nextId = 0;
  private readonly detached: CoreRequest[] = [];

  constructor(readonly world: World, readonly comm: WindowComm) {}

  /** A fresh operation id (the tag of its reply). */
  newId(): number {
    const id = this.nextId;
    this.nextId = (this.nextId + 1) % POSTED_TAG;
    return id;
  }

  /** Sends request `kind` to window rank `t`'s agent and waits until the device has it. */
  send(t: number, kind: number, msg: Uint8Array): void {
    const c = this.comm;
    const r = this.world.engine.isend(msg, c.worldRanks[t]!, c.requestCtx, c.rank, kind, MODE_STANDARD);
    this.world.progress.wait(r);
    this.world.engine.free(r);
  }

  /** Posts the receive of reply `id` from `t` into `into`. */
  expectReply(t: number, id: number, into: Uint8Array): CoreRequest {
    return this.world.engine.irecv(into, this.comm.replyCtx, t, id);
  }

  /** Sends request `kind` (value in header double 1) to `t`'s agent and waits for its empty reply. */
  roundTrip(t: number, kind: number, value: number): void {
    const id = this.newId();
    const r = this.expectReply(t, id, EMPTY);
    const h = headerOnly(value);
    new Float64Array(h.buffer, 0, HEADER_DOUBLES)[0] = id;
    this.send(t, kind, h);
    this.wait(r);
  }

  /** The agent's answer to `origin`, tagged `tag`; not waited for here (the agent runs inside progress). */
  reply(origin: number, tag: number, data: Uint8Array): void {
    const c = this.comm;
    const r = this.world.engine.isend(data, c.worldRanks[origin]!, c.replyCtx, c.rank, tag, MODE_STANDARD);
    if (r.state === STATE_DONE) this.world.engine.free(r);
    else this.detached.push(r);
  }

  /** Frees the replies the engine has finished sending. */
  reap(): void {
    if (this.detached.length === 0) return;
    let kept = 0;
    for (const r of this.detached) {
      if (r.state === STATE_DONE) this.world.engine.free(r);
      else this.detached[kept++] = r;
    }
    this.detached.length = kept;
  }

  /** Tells world rank `w` that its access epoch may begin (Post). */
  sendPosted(w: number): void {
    const r = this.world.engine.isend(EMPTY, w, this.comm.replyCtx, this.comm.rank, POSTED_TAG, MODE_STANDARD);
    this.wait(r);
  }

  /** The receive of `t`'s POSTED (Start). */
  expectPosted(t: number): CoreRequest {
    return this.world.engine.irecv(EMPTY, this.comm.replyCtx, t, POSTED_TAG);
  }

  /** The agent's receive of the next request from anyone. */
  postAgentReceive(): CoreRequest {
    return this.world.engine.irecvAllocating(this.comm.requestCtx, ANY_SOURCE, ANY_TAG);
  }

  /** Waits for `r` (driving progress) and frees it. */
  wait(r: CoreRequest): void {
    this.world.progress.wait(r);
    this.world.engine.free(r);
  }
}

const EMPTY = new Uint8Array(0);
