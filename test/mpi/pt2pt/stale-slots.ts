/**
 * ch_shmem's ring must not take stale payload for a packet. A short message longer than one
 * 128-byte slot continues into the next slots, whose first word is payload; a lap later the
 * receiver may poll such a slot for the next message's sequence number. Run with
 * TSMPI_SHMEM_SLOTS=16: every phase sends eight 2-slot messages (a lap) whose payload word at
 * the continuation slot equals the sequence number the receiver will expect there one lap
 * later, then a 1-slot message (so the next message starts on a former continuation slot),
 * then, after a pause in which the receiver polls that slot, fifteen 1-slot messages: 32
 * slots, two laps.
 * The slots used before the first phase are not known, so phase p assumes p of them (0..63).
 * A receiver that trusts the stale word parses payload as a header and fails.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const RING = 16;
const PHASE_SLOTS = 32;
const two = new Int32Array(50); // 32-byte header + 200 bytes: 2 slots
const one = new Int32Array(2); // 1 slot
const pause = new Int32Array(new SharedArrayBuffer(4));
if (size >= 2 && rank <= 1) {
  for (let p = 0; p < 64; p++) {
    const base = p + PHASE_SLOTS * p; // the absolute slot index of this phase's first message, if p slots came before
    for (let j = 0; j < 8; j++) {
      if (rank === 1) {
        two.fill(0);
        // Word 24 of the payload is the first word of the continuation slot base + 2j + 1.
        two[24] = base + 2 * j + 1 + RING + 1;
        two[0] = p;
        comm.Send(two, 0, j);
      } else {
        comm.Recv(two, 1, j);
        t.equal(two[0], p, `phase ${p}: 2-slot message ${j}`);
      }
    }
    for (let k = 0; k < 16; k++) {
      if (rank === 1) {
        comm.Send(Int32Array.of(p, 100 + k), 0, 8);
        if (k === 0) Atomics.wait(pause, 0, 0, 2); // the receiver polls the next slot meanwhile
      } else {
        comm.Recv(one, 1, 8);
        t.equal(one[1], 100 + k, `phase ${p}: 1-slot message ${k}`);
      }
    }
  }
}
comm.Barrier();
MPI.Finalize();
t.finish(rank);
