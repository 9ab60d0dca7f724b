import { COLL_BARRIER } from '../config.js';
import { type Call, execute, newSchedule, type Schedule, traceAlgorithm } from './common.js';
import type { Request } from '../request.js';
import { barrierShmCounter, shmBarrierUseful } from './shm-barrier.js';
import { smallBarrier } from './shm-small.js';

const EMPTY = new Uint8Array(0);
const choice = COLL_BARRIER.read();

/** Dissemination: in round k every rank signals rank + 2^k and waits for rank - 2^k. */
export function barrierDissemination(s: Schedule): void {
  const { rank, size } = s.core;
  for (let k = 1; k < size; k <<= 1) {
    s.round().recv(EMPTY, (rank - k + size) % size).send(EMPTY, (rank + k) % size);
  }
}

/** Linear: everyone signals rank 0, which then releases everyone. */
export function barrierLinear(s: Schedule): void {
  const { rank, size } = s.core;
  s.round();
  if (rank === 0) for (let r = 1; r < size; r++) s.recv(EMPTY, r);
  else s.send(EMPTY, 0);
  s.round();
  if (rank === 0) for (let r = 1; r < size; r++) s.send(EMPTY, r);
  else s.recv(EMPTY, 0);
}

export function barrier(c: Call, nonblocking: boolean): Request | undefined {
  if (!nonblocking && choice === 'auto' && smallBarrier(c)) return undefined;
  const s = newSchedule(c);
  let algo = choice;
  if (algo === 'auto' || algo === 'shm_counter') algo = shmBarrierUseful(c.core, c.world) ? 'shm_counter' : 'dissemination';
  traceAlgorithm(s, 'barrier', algo, 0);
  if (algo === 'shm_counter') barrierShmCounter(s, c.world, c.persistent === true);
  else if (algo === 'linear') barrierLinear(s);
  else barrierDissemination(s);
  return execute(c, s, nonblocking);
}
