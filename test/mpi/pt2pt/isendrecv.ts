/**
 * Isendrecv and Isendrecv_replace (MPI-4): around a ring and with a distant partner, many in
 * flight, completed by Wait, Waitall, Testall loops and await; the Status is the receive's;
 * MPI.PROC_NULL on either side; a non-contiguous buffer replaced; sizes across the protocols.
 */
import { MPI, type Request } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;

async function main(): Promise<void> {
  for (const n of [0, 1, 7, 300, 5000, 70_000]) {
    for (let round = 0; round < 6; round++) {
      const out = Float64Array.from({ length: n }, (_, i) => rank * 1e6 + round * 1000 + i);
      const inbox = new Float64Array(n).fill(-1);
      const st = new MPI.Status();
      const r = comm.Isendrecv(out, right, 10 + round, inbox, left, 10 + round);
      const rep = Int32Array.from({ length: n }, (_, i) => rank * 7 + i);
      const rr = comm.Isendrecv_replace(rep, left, 20, right, 20);
      if (round % 3 === 0) { r.Wait(st); rr.Wait(); }
      else if (round % 3 === 1) { MPI.Request.Waitall([rr, r], [new MPI.Status(), st]); }
      else { const s = await r; st.source = s.source; st.tag = s.tag; st.count = s.count; await rr; }
      t.check(inbox.every((x, i) => x === left * 1e6 + round * 1000 + i), `Isendrecv ${n} doubles round ${round}`);
      t.check(rep.every((x, i) => x === right * 7 + i), `Isendrecv_replace ${n} ints round ${round}`);
      t.equal(st.source, left, 'status source');
      t.equal(st.tag, 10 + round, 'status tag');
      t.equal(st.count, 8 * n, 'status count (bytes)');
    }
  }
  // Many in flight at once, wildcard receives, completed with a Testall loop.
  const reqs: Request[] = [];
  const boxes: Int32Array[] = [];
  for (let k = 0; k < 20; k++) {
    const box = new Int32Array(3);
    boxes.push(box);
    reqs.push(comm.Isendrecv(Int32Array.of(rank, k, -k), right, 30, box, MPI.ANY_SOURCE, 30));
  }
  while (!MPI.Request.Testall(reqs)) { /* drives progress */ }
  t.check(boxes.every((b, k) => b[0] === left && b[1] === k && b[2] === -k), 'twenty in flight arrive in order');
  // MPI.PROC_NULL: nothing received (empty status), nothing sent.
  const st = new MPI.Status();
  const box = Int32Array.of(5);
  comm.Isendrecv(Int32Array.of(1), MPI.PROC_NULL, 0, box, MPI.PROC_NULL, 0).Wait(st);
  t.equal(st.source, MPI.PROC_NULL, 'PROC_NULL status source');
  t.equal(box[0], 5, 'PROC_NULL leaves the buffer');
  // A column of a matrix, replaced by the left neighbour's.
  const column = MPI.INT.Create_vector(4, 1, 3).Commit();
  const m = Int32Array.from({ length: 12 }, (_, i) => rank * 100 + i);
  comm.Isendrecv_replace([m, 1, column], right, 40, left, 40).Wait();
  t.check(m.every((x, i) => x === (i % 3 === 0 ? left : rank) * 100 + i), 'Isendrecv_replace of a vector');
  column.Free();
  // Truncation is reported on the request.
  const small = new Int32Array(1);
  const tr = comm.Isendrecv(new Int32Array(4), right, 50, small, left, 50);
  t.throws(() => tr.Wait(), MPI.ERR_TRUNCATE, /longer than the receive buffer/, 'Isendrecv truncation');
  t.throws(() => comm.Isendrecv(small, size, 0, small, left, 0), MPI.ERR_RANK, /dest/, 'Isendrecv with a bad dest');
  t.throws(() => comm.Isendrecv_replace(small, right, -5, left, 0), MPI.ERR_TAG, /tag/, 'Isendrecv_replace with a bad tag');
  comm.Barrier();
}

await main();
MPI.Finalize();
t.finish(rank);
