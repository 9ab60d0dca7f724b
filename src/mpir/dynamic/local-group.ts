import { nodeV8 } from '../../common/node-v8.js';
import { MODE_STANDARD, type CoreRequest } from '../../mpid/index.js';
import type { World } from '../../mpid/world.js';
import type { CommCore } from '../comm.js';

/**
 * What the calls of dynamic processes send within one group, on its communicator's collective
 * context: every member's value to the root, the root's outcome to every member (structured
 * clones; a handshake's few messages, far from any hot path).
 */

/** Every member's value at the root (in rank order), null elsewhere. */
export function gatherAtRoot<T>(world: World, local: CommCore, root: number, mine: T, tag: number): T[] | null {
  if (local.rank !== root) {
    waitFree(world, world.engine.isend(nodeV8().serialize(mine), local.worldRanks[root]!, local.ctx + 1, local.rank, tag, MODE_STANDARD));
    return null;
  }
  const all: T[] = [];
  for (let r = 0; r < local.size; r++) all.push(r === root ? mine : receive<T>(world, local, r, tag));
  return all;
}

/** The root's `value` to every other member (the root's side). */
export function bcastFromRoot<T>(world: World, local: CommCore, root: number, value: T, tag: number): void {
  const bytes = nodeV8().serialize(value);
  const sends: CoreRequest[] = [];
  for (let r = 0; r < local.size; r++) {
    if (r !== root) sends.push(world.engine.isend(bytes, local.worldRanks[r]!, local.ctx + 1, local.rank, tag, MODE_STANDARD));
  }
  for (const s of sends) waitFree(world, s);
}

/** What the root sent with bcastFromRoot (the other members' side). */
export function receiveFromRoot<T>(world: World, local: CommCore, root: number, tag: number): T {
  return receive<T>(world, local, root, tag);
}

function receive<T>(world: World, local: CommCore, from: number, tag: number): T {
  const req = world.engine.irecvAllocating(local.ctx + 1, from, tag);
  world.progress.wait(req);
  const value = nodeV8().deserialize(req.buf) as T;
  world.engine.free(req);
  return value;
}

function waitFree(world: World, r: CoreRequest): void {
  world.progress.wait(r);
  world.engine.free(r);
}
