/**
 * Partitioned communication (MPI-4 chapter 4): Psend_init/Precv_init around a ring, many rounds
 * with new data each round, partitions marked ready out of order (reverse, Pready_range,
 * Pready_list), Parrived true only once the partition's data is in place, different partition
 * counts on the two sides, a non-contiguous datatype, MPI.PROC_NULL, and the errors.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const per = Number(process.argv[2] ?? 7);
const ROUNDS = 10;
const v = (r: number, round: number, i: number) => (r + 1) * 100000 + round * 1000 + i;

function ring(sendParts: number, recvParts: number, tag: number): void {
  const count = sendParts * recvParts * per;
  const out = new Float64Array(count);
  const inbox = new Float64Array(count);
  const s = comm.Psend_init(out, sendParts, right, tag);
  const r = comm.Precv_init(inbox, recvParts, left, tag, MPI.INFO_NULL);
  const rb = count / recvParts;
  for (let round = 0; round < ROUNDS; round++) {
    out.forEach((_, i, a) => { a[i] = v(rank, round, i); });
    inbox.fill(-1);
    if (round % 2 === 0) MPI.Prequest.Startall([r, s]);
    else { s.Start(); r.Start(); }
    // Out of order: reverse, a range and a list, or one by one from the middle out.
    if (round % 3 === 0) for (let k = sendParts - 1; k >= 0; k--) s.Pready(k);
    else if (round % 3 === 1) {
      s.Pready_range(Math.floor(sendParts / 2), sendParts - 1);
      if (sendParts > 1) s.Pready_list(Array.from({ length: Math.floor(sendParts / 2) }, (_, k) => k).reverse());
    } else for (const k of Array.from({ length: sendParts }, (_, k) => k).sort((a, b) => Math.abs(a - sendParts / 2) - Math.abs(b - sendParts / 2))) s.Pready(k);
    const seen = new Uint8Array(recvParts);
    let left_ = recvParts;
    while (left_ > 0) {
      for (let j = 0; j < recvParts; j++) {
        if (seen[j] || !r.Parrived(j)) continue;
        seen[j] = 1;
        left_--;
        let ok = true;
        for (let i = j * rb; i < (j + 1) * rb; i++) if (inbox[i] !== v(left, round, i)) ok = false;
        t.check(ok, `${sendParts}->${recvParts}: partition ${j} arrived with its data, round ${round}`);
      }
    }
    const st = new MPI.Status();
    MPI.Request.Waitall([s, r], [new MPI.Status(), st]);
    t.check(inbox.every((x, i) => x === v(left, round, i)), `${sendParts}->${recvParts}: round ${round} data`);
    t.equal(st.Get_source(), left, 'status source');
    t.equal(st.Get_tag(), tag, 'status tag');
    t.equal(r.Parrived(0), true, 'Parrived on an inactive request');
  }
  s.Free();
  r.Free();
}

/** A column of a matrix (non-contiguous): partitions packed at Pready and unpacked on arrival. */
function derived(): void {
  const parts = 3;
  const rows = parts * per;
  // `per` rows of one column, resized so that consecutive ones continue down the column.
  const strided = MPI.INT.Create_vector(per, 1, 2);
  const column = strided.Create_resized(0, 2 * per * 4).Commit();
  strided.Free();
  const out = new Int32Array(2 * rows);
  const inbox = new Int32Array(2 * rows);
  const s = comm.Psend_init([out, parts, column], parts, right, 5);
  const r = comm.Precv_init([inbox.subarray(1), parts, column], parts, left, 5);
  for (let round = 0; round < ROUNDS; round++) {
    out.forEach((_, i, a) => { a[i] = i % 2 === 0 ? v(rank, round, i / 2) : -7; });
    inbox.fill(-3);
    r.Start();
    s.Start();
    s.Pready_list([2, 0, 1]);
    r.Wait();
    s.Wait();
    t.check(inbox.every((x, i) => (i % 2 === 1 ? x === v(left, round, (i - 1) / 2) : x === -3)), `vector round ${round}`);
  }
  s.Free();
  r.Free();
  column.Free();
}

function errors(): void {
  const buf = new Int32Array(6);
  const s = comm.Psend_init(buf, 3, right, 9);
  const r = comm.Precv_init(new Int32Array(6), 2, left, 9);
  t.throws(() => s.Pready(0), MPI.ERR_REQUEST, /not active/, 'Pready before Start');
  r.Start();
  s.Start();
  t.throws(() => s.Pready(3), MPI.ERR_ARG, /out of range/, 'Pready out of range');
  t.throws(() => s.Pready_range(2, 1), MPI.ERR_ARG, /above/, 'Pready_range low above high');
  t.throws(() => r.Pready(0), MPI.ERR_REQUEST, /not a partitioned send/, 'Pready on a receive');
  t.throws(() => s.Parrived(0), MPI.ERR_REQUEST, /not a partitioned receive/, 'Parrived on a send');
  t.throws(() => r.Parrived(2), MPI.ERR_ARG, /out of range/, 'Parrived out of range');
  t.throws(() => s.Start(), MPI.ERR_REQUEST, /already active/, 'Start of an active partitioned request');
  t.throws(() => s.Free(), MPI.ERR_REQUEST, /active/, 'Free of an active partitioned request');
  s.Pready_range(0, 2);
  t.throws(() => s.Pready(1), MPI.ERR_ARG, /already marked ready/, 'Pready twice');
  MPI.Request.Waitall([s, r]);
  s.Free();
  r.Free();
  t.throws(() => s.Start(), MPI.ERR_REQUEST, /freed/, 'Start after Free');
  t.throws(() => comm.Precv_init(buf, 3, MPI.ANY_SOURCE), MPI.ERR_RANK, /ANY_SOURCE is not allowed/, 'Precv_init with ANY_SOURCE');
  t.throws(() => comm.Psend_init(buf, 4, right), MPI.ERR_COUNT, /multiple/, 'Psend_init with a count not a multiple of partitions');
  t.throws(() => comm.Psend_init(buf, 0, right), MPI.ERR_ARG, /positive/, 'Psend_init with 0 partitions');
  t.throws(() => comm.Psend_init(buf, 3, size), MPI.ERR_RANK, /dest/, 'Psend_init with a bad dest');
  const n = comm.Psend_init(buf, 3, MPI.PROC_NULL);
  const m = comm.Precv_init(buf, 3, MPI.PROC_NULL);
  for (let round = 0; round < 3; round++) {
    MPI.Prequest.Startall([n, m]);
    n.Pready_range(0, 2);
    t.equal(m.Parrived(1), true, 'Parrived from MPI.PROC_NULL');
    MPI.Request.Waitall([n, m]);
  }
}

ring(4, 4, 1);
ring(6, 3, 2);
ring(1, 5, 3);
derived();
errors();
comm.Barrier();
MPI.Finalize();
t.finish(rank);
