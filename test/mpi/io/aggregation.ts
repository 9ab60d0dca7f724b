/**
 * Two-phase I/O makes few large writes of many small strided ones: every rank writes BLOCKS
 * blocks of 64 bytes, interleaved with the other ranks' (a vector filetype). Counted by MPI.T's
 * io_file_writes over all ranks: collectively, at most one write per aggregator (the file's
 * cb_nodes; the span fits one cb_buffer_size window), each of it the whole domain; with
 * romio_cb_write=disable, one write per block. Reads likewise: one read per aggregator.
 */
import os from 'node:os';
import path from 'node:path';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
const T = MPI.T;
T.Init_thread();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const dir = process.env.TSMPI_IO_DIR ?? os.tmpdir();
const name = world.bcast(rank === 0 ? path.join(dir, `tsmpi-io-aggregation-${process.pid}-${Date.now()}`) : null, 0) as string;

const BLOCKS = 64;
const session = T.pvar_session_create();
const handle = (n: string) => T.pvar_handle_alloc(session, T.pvar_get_index(n, T.PVAR_CLASS_COUNTER));
const writes = handle('io_file_writes');
const writeBytes = handle('io_file_write_bytes');
const reads = handle('io_file_reads');
T.pvar_start(session, T.PVAR_ALL_HANDLES);

/** The counter's growth over all ranks while `body` runs. */
function counted(h: ReturnType<typeof handle>, body: () => void): number {
  const before = Number(T.pvar_read(session, h));
  body();
  const mine = Float64Array.of(Number(T.pvar_read(session, h)) - before);
  const all = new Float64Array(1);
  world.Allreduce(mine, all, MPI.SUM);
  return all[0]!;
}

const filetype = MPI.BYTE.Create_vector(BLOCKS, 64, 64 * size).Commit();
const data = new Uint8Array(BLOCKS * 64).fill(rank + 1);
const f = MPI.File.Open(world, name, MPI.MODE_RDWR | MPI.MODE_CREATE | MPI.MODE_DELETE_ON_CLOSE);
f.Set_view(rank * 64, MPI.BYTE, filetype);
const aggregators = Number(f.Get_info().Get('cb_nodes'));
t.check(aggregators >= 1 && aggregators <= size, `cb_nodes ${aggregators}`);

const collective = counted(writes, () => f.Write_at_all(0, data));
t.check(collective >= 1 && collective <= aggregators, `Write_at_all: ${collective} writes for ${aggregators} aggregators`);
const bytes = counted(writeBytes, () => f.Write_at_all(0, data));
t.equal(bytes, BLOCKS * 64 * size, 'Write_at_all writes each byte once');
const collectiveReads = counted(reads, () => f.Read_at_all(0, data));
t.check(collectiveReads >= 1 && collectiveReads <= aggregators, `Read_at_all: ${collectiveReads} reads for ${aggregators} aggregators`);

const off = MPI.Info.Create();
off.Set('romio_cb_write', 'disable');
f.Set_info(off);
const independent = counted(writes, () => f.Write_at_all(0, data));
t.equal(independent, size === 1 ? 1 : BLOCKS * size, 'Write_at_all without collective buffering: a write per block');
off.Free();
f.Close();
T.pvar_stop(session, T.PVAR_ALL_HANDLES);
T.pvar_session_free(session);
filetype.Free();
MPI.Finalize();
T.Finalize();
t.finish(rank);
