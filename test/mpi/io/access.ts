/**
 * Every access form of MPI.File against a serial reference. Each rank owns every size-th block
 * of BLOCK ints of a file seen through a strided view (a vector filetype, resized so its tiles
 * interleave); the file each form writes is compared byte for byte with the layout computed
 * here serially, and each matching read form must give every rank its own values back. The
 * shared and ordered forms, external32, a non-contiguous memory type, the pointers and the
 * file's size calls follow. arg=small runs collective buffering in 64-byte windows over 2
 * aggregators, so the two-phase rounds and the read-modify-write of gaps are exercised.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type File, MPI, type Request, Status } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
const small = process.argv.includes('small');
const dir = process.env.TSMPI_IO_DIR ?? os.tmpdir();
const name = world.bcast(rank === 0 ? path.join(dir, `tsmpi-io-access-${process.pid}-${Date.now()}`) : null, 0) as string;

const BLOCK = 5;
const NBLOCKS = 7;
const N = BLOCK * NBLOCKS;
const info = MPI.Info.Create();
if (small) {
  info.Set('cb_buffer_size', '64');
  info.Set('cb_nodes', '2');
}

const filetype = MPI.INT.Create_vector(NBLOCKS, BLOCK, BLOCK * size).Create_resized(0, BLOCK * size * 4 * NBLOCKS).Commit();
const mine = Int32Array.from({ length: N }, (_, i) => 1000 * (rank + 1) + i);

/** The file's ints as the strided writes of every rank leave it. */
function reference(seed: number): Int32Array {
  const out = new Int32Array(N * size);
  for (let j = 0; j < out.length; j++) {
    const b = Math.floor(j / BLOCK);
    const owner = b % size;
    const i = Math.floor(b / size) * BLOCK + (j % BLOCK);
    out[j] = seed + 1000 * (owner + 1) + i;
  }
  return out;
}

function checkFile(expected: Int32Array, what: string): void {
  world.Barrier();
  if (rank === 0) {
    const bytes = fs.readFileSync(name);
    const got = new Int32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4));
    t.equal(got.length, expected.length, `${what}: file length in ints`);
    const bad = expected.findIndex((v, j) => got[j] !== v);
    t.check(bad < 0, `${what}: the file differs from the reference at int ${bad} (${got[bad]} != ${expected[bad]})`);
  }
  world.Barrier();
}

function fresh(mode = MPI.MODE_RDWR | MPI.MODE_CREATE): File {
  world.Barrier();
  if (rank === 0) fs.rmSync(name, { force: true });
  world.Barrier();
  const f = MPI.File.Open(world, name, mode, info);
  f.Set_view(rank * BLOCK * 4, MPI.INT, filetype, 'native');
  return f;
}

type Write = (f: File, data: Int32Array) => void;
type Read = (f: File, data: Int32Array, status: Status) => void;
const forms: [string, Write, Read][] = [
  ['_at', (f, d) => f.Write_at(0, d), (f, d, s) => f.Read_at(0, d, s)],
  ['_at_all', (f, d) => f.Write_at_all(0, d), (f, d, s) => f.Read_at_all(0, d, s)],
  ['individual', (f, d) => f.Write(d), (f, d, s) => { f.Seek(0); f.Read(d, s); }],
  ['_all', (f, d) => f.Write_all(d), (f, d, s) => { f.Seek(0); f.Read_all(d, s); }],
  ['I_at', (f, d) => { f.Iwrite_at(0, d).Wait(); }, (f, d, s) => { f.Iread_at(0, d).Wait(s); }],
  ['I', (f, d) => { f.Iwrite(d).Wait(); }, (f, d, s) => { f.Seek(0); MPI.Request.Waitall([f.Iread(d)], [s]); }],
  ['I_at_all', (f, d) => { f.Iwrite_at_all(0, d).Wait(); }, (f, d, s) => { f.Iread_at_all(0, d).Wait(s); }],
  ['I_all', (f, d) => { f.Iwrite_all(d).Wait(); }, (f, d, s) => { f.Seek(0); const r = f.Iread_all(d); if (!r.Test(s)) r.Wait(s); }],
  ['_at_all split', (f, d) => { f.Write_at_all_begin(0, d); f.Write_at_all_end(d); },
    (f, d, s) => { f.Read_at_all_begin(0, d); f.Read_at_all_end(d, s); }],
  ['_all split', (f, d) => { f.Write_all_begin(d); f.Write_all_end(d); },
    (f, d, s) => { f.Seek(0); f.Read_all_begin(d); f.Read_all_end(d, s); }],
];

for (const [form, write, read] of forms) {
  const f = fresh();
  write(f, mine);
  if (!form.includes('_at')) {
    t.equal(f.Get_position(), N, `Write${form}: the individual pointer moves by the ints written`);
  }
  f.Sync();
  checkFile(reference(0), `Write${form}`);
  const back = new Int32Array(N);
  const st = new MPI.Status();
  read(f, back, st);
  t.equal(st.Get_count(MPI.INT), N, `Read${form}: status count`);
  const bad = back.findIndex((v, i) => v !== mine[i]);
  t.check(bad < 0, `Read${form}: int ${bad} is ${back[bad]}, expected ${mine[bad]}`);
  f.Close();
}

// A non-blocking collective never waits in its I-call: rank 0 starts it, then sends to rank 1,
// which receives before starting its own (a blocking start would deadlock here).
{
  const f = fresh();
  const token = new Int32Array(1);
  let r: Request;
  if (rank === 0) {
    r = f.Iwrite_at_all(0, mine);
    if (size > 1) world.Send(token, 1, 9);
  } else {
    if (rank === 1) world.Recv(token, 0, 9);
    r = f.Iwrite_at_all(0, mine);
  }
  // Two in flight on one file, completed in the other order: the second starts after the first.
  const back = new Int32Array(N);
  const r2 = f.Iread_at_all(0, back);
  r2.Wait();
  r.Wait();
  t.check(back.every((v, i) => v === mine[i]), 'Iread_at_all after Iwrite_at_all on one file sees the write');
  f.Sync();
  checkFile(reference(0), 'Iwrite_at_all started out of step');
  f.Close();
}

// A read past the end finds what is there: status counts it.
{
  const f = fresh();
  f.Write_at_all(0, mine.subarray(0, BLOCK));
  const back = new Int32Array(N);
  const st = new MPI.Status();
  f.Read_at_all(0, back, st);
  t.equal(st.Get_count(MPI.INT), rank === size - 1 ? BLOCK : Math.min(N, BLOCK), 'Read_at_all past the end: the ints found');
  // Independent reads sieve small strided runs (one read of their span): the end of the file still cuts them.
  f.Sync();
  back.fill(0);
  f.Read_at(0, back, st);
  t.equal(st.Get_count(MPI.INT), BLOCK, 'Read_at past the end: the ints found');
  t.check(back.subarray(0, BLOCK).every((v, i) => v === mine[i]), 'Read_at past the end: the ints before it');
  f.Close();
}

// A subarray filetype: each rank a column block of a 2-D array of ints (ROWS x size*COLS).
{
  const ROWS = 6;
  const COLS = 3;
  const f = fresh();
  const sub = MPI.INT.Create_subarray([ROWS, size * COLS], [ROWS, COLS], [0, rank * COLS]).Commit();
  f.Set_view(0, MPI.INT, sub);
  const part = Int32Array.from({ length: ROWS * COLS }, (_, i) => 100 * rank + i);
  f.Write_all(part);
  f.Sync();
  const expected = new Int32Array(ROWS * size * COLS);
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < size * COLS; c++) expected[r * size * COLS + c] = 100 * Math.floor(c / COLS) + r * COLS + (c % COLS);
  }
  checkFile(expected, 'Write_all through a subarray filetype');
  const back = new Int32Array(ROWS * COLS);
  f.Read_at(0, back);
  t.check(back.every((v, i) => v === part[i]), 'Read_at through a subarray filetype');
  sub.Free();
  f.Close();
}

// MODE_SEQUENTIAL (shared pointer only) and MODE_APPEND (pointers start at the end).
{
  const f = fresh();
  f.Set_view(0, MPI.BYTE, MPI.BYTE);
  f.Write_ordered(new Uint8Array(2).fill(rank + 1));
  f.Close();
  const seq = MPI.File.Open(world, name, MPI.MODE_WRONLY | MPI.MODE_SEQUENTIAL | MPI.MODE_APPEND);
  t.equal(seq.Get_position_shared(), 2 * size, 'MODE_APPEND: the shared pointer starts at the end');
  t.throws(() => seq.Write_at(0, new Uint8Array(1)), MPI.ERR_UNSUPPORTED_OPERATION, /MODE_SEQUENTIAL/, 'MODE_SEQUENTIAL refuses Write_at');
  seq.Write_ordered(Uint8Array.of(50 + rank));
  // DISPLACEMENT_CURRENT: the view starts where the shared pointer is.
  seq.Set_view(MPI.DISPLACEMENT_CURRENT, MPI.BYTE, MPI.BYTE);
  t.equal(seq.Get_view()[0], 3 * size, 'Set_view(DISPLACEMENT_CURRENT) starts at the shared pointer');
  t.equal(seq.Get_position_shared(), 0, 'Set_view resets the shared pointer');
  seq.Close();
  world.Barrier();
  const bytes = fs.readFileSync(name);
  t.check(bytes.length === 3 * size && bytes.subarray(2 * size).every((b, r) => b === 50 + r), `MODE_SEQUENTIAL|MODE_APPEND appends in rank order: ${[...bytes]}`);
}

// A non-contiguous memory type: every other int of a buffer twice as long.
{
  const f = fresh();
  const spread = new Int32Array(2 * N);
  for (let i = 0; i < N; i++) spread[2 * i] = mine[i]!;
  const every2 = MPI.INT.Create_vector(N, 1, 2).Commit();
  f.Write_all([spread, 1, every2]);
  f.Sync();
  checkFile(reference(0), 'Write_all from a vector memory type');
  const back = new Int32Array(2 * N).fill(-1);
  f.Read_at_all(0, [back, 1, every2]);
  t.check(mine.every((v, i) => back[2 * i] === v) && back[1] === -1, 'Read_at_all into a vector memory type');
  every2.Free();
  f.Close();
}

// external32: big-endian in the file, native in memory.
{
  const f = fresh();
  f.Set_view(rank * 16, MPI.INT, MPI.INT, 'external32');
  const four = Int32Array.of(rank, 0x01020304, -2, 7);
  f.Write_at_all(0, four);
  f.Sync();
  world.Barrier();
  const raw = fs.readFileSync(name);
  t.equal(raw.readInt32BE(rank * 16 + 4), 0x01020304, 'external32: the file holds big-endian ints');
  t.equal(raw.readInt32BE(rank * 16 + 8), -2, 'external32: negative int');
  const back = new Int32Array(4);
  f.Read_at(0, back);
  t.check(back.every((v, i) => v === four[i]), `external32: read back ${back.join(',')}`);
  t.equal(f.Get_view()[3], 'external32', 'Get_view datarep');
  f.Close();
}

// external32 through a collective access with a non-contiguous memory type (doubles, every other one).
{
  const f = fresh();
  f.Set_view(rank * 24, MPI.DOUBLE, MPI.DOUBLE.Create_vector(3, 1, 1).Create_resized(0, 24 * size).Commit(), 'external32');
  const spread = Float64Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? rank + i / 8 : -1));
  const every2 = MPI.DOUBLE.Create_vector(3, 1, 2).Commit();
  f.Write_all([spread, 1, every2]);
  f.Sync();
  world.Barrier();
  const raw = fs.readFileSync(name);
  t.check([0, 1, 2].every((k) => raw.readDoubleBE(rank * 24 + 8 * k) === rank + (2 * k) / 8), 'external32 Write_all: big-endian doubles in the file');
  const back = new Float64Array(6).fill(7);
  f.Seek(0);
  f.Read_all([back, 1, every2]);
  t.check([0, 1, 2].every((k) => back[2 * k] === spread[2 * k] && back[2 * k + 1] === 7), `external32 Read_all into a vector: ${back.join(',')}`);
  every2.Free();
  f.Get_view()[2].Free();
  f.Close();
}

// Shared and ordered pointers on a byte view.
{
  const f = fresh();
  f.Set_view(0, MPI.BYTE, MPI.BYTE);
  const chunk = new Uint8Array(3 + rank).fill(rank + 1);
  f.Write_ordered(chunk);
  const total = (size * 3) + (size * (size - 1)) / 2;
  t.equal(f.Get_position_shared(), total, 'Write_ordered moves the shared pointer past every rank');
  f.Sync();
  world.Barrier();
  const bytes = fs.readFileSync(name);
  let at = 0;
  let ordered = true;
  for (let r = 0; r < size; r++) {
    for (let i = 0; i < 3 + r; i++) if (bytes[at++] !== r + 1) ordered = false;
  }
  t.check(ordered && bytes.length === total, `Write_ordered writes in rank order: ${[...bytes].join('')}`);
  f.Seek_shared(0);
  const back = new Uint8Array(3 + rank);
  f.Read_ordered(back);
  t.check(back.every((v) => v === rank + 1), 'Read_ordered reads this rank\'s part');
  world.Barrier();
  f.Seek_shared(0, MPI.SEEK_END);
  t.equal(f.Get_position_shared(), total, 'Seek_shared(0, SEEK_END)');
  world.Barrier();
  f.Write_shared(Uint8Array.of(100 + rank));
  world.Barrier();
  t.equal(f.Get_position_shared(), total + size, 'Write_shared moves the shared pointer');
  f.Sync();
  const tail = fs.readFileSync(name).subarray(total);
  t.check([...tail].sort().join() === Array.from({ length: size }, (_, r) => 100 + r).sort().join(), `Write_shared: each rank's byte once: ${[...tail]}`);
  // The split ordered forms, and Seek_shared relative to the pointer.
  f.Seek_shared(0);
  f.Seek_shared(total + size, MPI.SEEK_CUR);
  f.Write_ordered_begin(Uint8Array.of(200 + rank));
  f.Write_ordered_end(Uint8Array.of(0));
  t.equal(f.Get_position_shared(), total + 2 * size, 'Write_ordered_begin/end moves the shared pointer');
  f.Seek_shared(total + size);
  const mineBack = new Uint8Array(1);
  const split = new MPI.Status();
  f.Read_ordered_begin(mineBack);
  f.Read_ordered_end(mineBack, split);
  t.check(mineBack[0] === 200 + rank && split.Get_count(MPI.BYTE) === 1, `Read_ordered_begin/end reads this rank's byte: ${mineBack[0]}`);
  // The non-blocking shared forms.
  f.Seek_shared(total);
  world.Barrier();
  const iread = new Uint8Array(1);
  const ist = new MPI.Status();
  f.Iread_shared(iread).Wait(ist);
  t.equal(ist.Get_count(MPI.BYTE), 1, 'Iread_shared: status count');
  const iseen = new Uint8Array(size);
  world.Allgather(iread, iseen);
  t.check([...iseen].sort().join() === [...tail].sort().join(), 'Iread_shared: every byte read once');
  world.Barrier();
  f.Seek_shared(total + 2 * size);
  f.Iwrite_shared(Uint8Array.of(150 + rank)).Wait();
  world.Barrier();
  t.equal(f.Get_position_shared(), total + 3 * size, 'Iwrite_shared moves the shared pointer');
  f.Seek_shared(total);
  const one = new Uint8Array(1);
  f.Read_shared(one);
  const seen = new Uint8Array(size);
  world.Allgather(one, seen);
  t.check([...seen].sort().join() === [...tail].sort().join(), 'Read_shared: every byte read once');
  f.Close();
}

// Pointers, offsets, sizes, mode, group, hints, atomicity.
{
  const f = fresh();
  f.Write_all(mine);
  f.Seek(2);
  t.equal(f.Get_position(), 2, 'Seek(2)');
  f.Seek(3, MPI.SEEK_CUR);
  t.equal(f.Get_position(), 5, 'Seek(3, SEEK_CUR)');
  f.Seek(0, MPI.SEEK_END);
  t.equal(f.Get_position(), N, 'Seek(0, SEEK_END): the end of the view\'s data');
  t.equal(f.Get_byte_offset(BLOCK + 1), rank * BLOCK * 4 + size * BLOCK * 4 + 4, 'Get_byte_offset in the second tile block');
  t.equal(f.Get_size(), N * size * 4, 'Get_size');
  f.Set_size(40);
  t.equal(f.Get_size(), 40, 'Set_size shrinks');
  f.Preallocate(20);
  t.equal(f.Get_size(), 40, 'Preallocate never shrinks');
  f.Preallocate(4096);
  t.equal(f.Get_size(), 4096, 'Preallocate grows');
  t.equal(f.Get_amode(), MPI.MODE_RDWR | MPI.MODE_CREATE, 'Get_amode');
  t.check(f.amode === f.Get_amode() && f.size === 4096 && f.group_size === size && f.group_rank === rank, 'mpi4py\'s properties');
  t.equal(f.Get_group().Compare(world.Get_group()), MPI.IDENT, 'Get_group');
  const hints = f.Get_info();
  t.equal(hints.Get('cb_buffer_size'), small ? '64' : String(16 * 1024 * 1024), 'Get_info cb_buffer_size');
  t.check(hints.Get('romio_cb_write') === 'automatic', 'Get_info romio_cb_write');
  t.equal(f.Get_atomicity(), false, 'atomicity is off at open');
  f.Set_atomicity(true);
  t.equal(f.Get_atomicity(), true, 'Set_atomicity(true)');
  const [disp, etype, ft, rep] = f.Get_view();
  t.check(disp === rank * BLOCK * 4 && etype === MPI.INT && ft === filetype && rep === 'native', 'Get_view');
  t.equal(f.Get_type_extent(MPI.DOUBLE), 8, 'Get_type_extent');
  f.Close();
}

// Collective buffering off: the same result.
{
  const off = MPI.Info.Create();
  off.Set('romio_cb_write', 'disable');
  off.Set('romio_cb_read', 'disable');
  const f = fresh();
  f.Set_info(off);
  t.equal(f.Get_info().Get('romio_cb_write'), 'disable', 'Set_info romio_cb_write');
  f.Write_all(mine);
  f.Sync();
  checkFile(reference(0), 'Write_all without collective buffering');
  const back = new Int32Array(N);
  f.Read_at_all(0, back);
  t.check(back.every((v, i) => v === mine[i]), 'Read_at_all without collective buffering');
  f.Close();
  off.Free();
}

// MODE_DELETE_ON_CLOSE removes the file at Close.
{
  const f = fresh(MPI.MODE_RDWR | MPI.MODE_CREATE | MPI.MODE_DELETE_ON_CLOSE);
  f.Write_at(0, mine);
  f.Close();
  t.check(!fs.existsSync(name), 'MODE_DELETE_ON_CLOSE deletes the file');
}

filetype.Free();
info.Free();
world.Barrier();
if (rank === 0) fs.rmSync(name, { force: true });
MPI.Finalize();
t.finish(rank);
