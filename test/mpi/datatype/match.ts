/**
 * Derived datatypes between two ranks: type signatures (a vector received as contiguous INTs
 * and back, data in type-map order), partial receives (Get_count UNDEFINED, Get_elements the
 * basic elements that arrived), truncation (what fits is unpacked, MPI.ERR_TRUNCATE raised),
 * Sendrecv_replace, Mprobe + Message.Recv, MPI.PROC_NULL, and the error classes of misuse.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const comm = MPI.COMM_WORLD;
comm.Set_errhandler(MPI.ERRORS_RETURN);
const { rank } = comm;
const peer = 1 - rank;
const S = -7;

// A column of a 4x3 INT matrix: 4 ints, stride 3.
const column = MPI.INT.Create_vector(4, 1, 3).Commit();
const matrix = () => Int32Array.from({ length: 12 }, (_, i) => 100 * rank + i);

if (rank < 2) {
  // 1. Vector sent, contiguous INTs received (same signature), and the reverse.
  if (rank === 0) {
    comm.Send([matrix(), 1, column], 1, 1);
    const back = new Int32Array(13).fill(S);
    comm.Recv([back, 1, column], 1, 2);
    t.equal([...back].join(), [100, S, S, 101, S, S, 102, S, S, 103, S, S, S].join(), 'contiguous into a column');
  } else {
    const got = new Int32Array(5).fill(S);
    const st = new MPI.Status();
    comm.Recv([got, 4, MPI.INT], 0, 1, st);
    t.equal([...got].join(), [0, 3, 6, 9, S].join(), 'column into contiguous INTs');
    t.equal(st.Get_count(MPI.INT), 4, 'Get_count(INT)');
    t.equal(st.Get_count(column), 1, 'Get_count(column)');
    comm.Send(Int32Array.of(100, 101, 102, 103), 0, 2);
  }

  // 2. Fewer elements than the receive type holds: Get_count UNDEFINED, Get_elements counts ints.
  if (rank === 0) {
    comm.Send(Int32Array.of(1, 2, 3, 4, 5, 6), 1, 3);
  } else {
    const got = new Int32Array(24).fill(S);
    const st = new MPI.Status();
    comm.Recv([got, 2, column], 0, 3, st);
    t.equal(st.Get_count(column), MPI.UNDEFINED, 'partial: Get_count(column) is UNDEFINED');
    t.equal(st.Get_elements(column), 6, 'partial: Get_elements(column)');
    t.equal(st.Get_count(MPI.INT), 6, 'partial: Get_count(INT)');
    t.equal([...got.subarray(0, 15)].join(), [1, S, S, 2, S, S, 3, S, S, 4, 5, S, S, 6, S].join(), 'partial: first elements unpacked');
    t.equal(got[21], S, 'partial: the rest untouched');
  }

  // 3. Truncation: 3 columns' worth into 1 column; the column is unpacked, ERR_TRUNCATE raised.
  for (const big of [false, true]) {
    const n = big ? 300_000 : 12;
    if (rank === 0) {
      comm.Send(Int32Array.from({ length: n }, (_, i) => i), 1, 4);
      comm.Send(Int32Array.from({ length: n }, (_, i) => i), 1, 5);
    } else {
      const got = new Int32Array(12).fill(S);
      t.throws(() => comm.Recv([got, 1, column], 0, 4), MPI.ERR_TRUNCATE, /longer than the receive buffer/, `truncated Recv (${n} ints)`);
      t.equal([...got].join(), [0, S, S, 1, S, S, 2, S, S, 3, S, S].join(), `truncated Recv (${n} ints): what fits is unpacked`);
      got.fill(S);
      const r = comm.Irecv([got, 1, column], 0, 5);
      t.throws(() => r.Wait(), MPI.ERR_TRUNCATE, /truncated/, `truncated Irecv (${n} ints)`);
      t.equal(got[9], 3, `truncated Irecv (${n} ints): what fits is unpacked`);
    }
  }

  // 4. Sendrecv_replace with a column; Mprobe + Message.Recv into a struct.
  const m = matrix();
  comm.Sendrecv_replace([m, 1, column], peer, 6, peer, 6);
  t.equal([...m].join(), Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 100 * peer + i : 100 * rank + i)).join(),
    'Sendrecv_replace: the column replaced, the rest kept');
  const pair = MPI.Datatype.Create_struct([1, 1], [0, 8], [MPI.INT, MPI.DOUBLE]).Commit();
  if (rank === 0) {
    const b = new DataView(new ArrayBuffer(32));
    b.setInt32(0, 42, true);
    b.setFloat64(8, 2.5, true);
    b.setInt32(16, 43, true);
    b.setFloat64(24, -1.5, true);
    comm.Send([b, 2, pair], 1, 7);
  } else {
    const st = new MPI.Status();
    const msg = comm.Mprobe(0, 7, st);
    t.equal(st.Get_count(pair), 2, 'Mprobe: Get_count(struct)');
    const into = new DataView(new ArrayBuffer(40));
    for (let i = 0; i < 40; i++) into.setUint8(i, 0xee);
    msg.Recv([into, 2, pair]);
    t.equal(into.getInt32(16, true), 43, 'Message.Recv struct: int');
    t.equal(into.getFloat64(24, true), -1.5, 'Message.Recv struct: double');
    t.equal(into.getUint8(4), 0xee, 'Message.Recv struct: padding untouched');
    t.equal(into.getUint8(32), 0xee, 'Message.Recv struct: after the end untouched');
  }
}

// 5. PROC_NULL and misuse.
const st = new MPI.Status();
comm.Recv([new Int32Array(12), 1, column], MPI.PROC_NULL, 0, st);
t.equal(st.Get_count(column), 0, 'PROC_NULL receive');
const loose = MPI.INT.Create_vector(2, 1, 2);
t.throws(() => comm.Send([new Int32Array(4), 1, loose], peer < 0 ? 0 : MPI.PROC_NULL), MPI.ERR_TYPE, /not committed; commit it first/, 'uncommitted type');
const freed = MPI.INT.Create_vector(2, 1, 2).Commit();
freed.Free();
t.throws(() => comm.Isend([new Int32Array(4), 1, freed], MPI.PROC_NULL), MPI.ERR_TYPE, /freed/, 'freed type');
t.throws(() => comm.Recv([new Int32Array(9), 1, column], MPI.PROC_NULL), MPI.ERR_BUFFER, /spans 40 bytes and does not fit a buffer of 36 bytes/, 'buffer too small for the type');
t.throws(() => MPI.INT.Create_vector(-1, 1, 1), MPI.ERR_COUNT, /count -1 is out of range/, 'negative count');
t.throws(() => MPI.INT.Create_subarray([4], [5], [0]), MPI.ERR_ARG, /subsizes\[0\] = 5 is out of range \(expected 0\.\.4\)/, 'subarray too big');
MPI.Finalize();
t.finish(rank);
