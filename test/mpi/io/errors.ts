/**
 * MPI.File's errors: each in MPI's I/O class, naming the call and the argument, raised through
 * the file's handler (MPI.ERRORS_RETURN by default, MPI.FILE_NULL's for Open and Delete); user
 * handlers for files are called with the file and the code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank } = world;
const dir = process.env.TSMPI_IO_DIR ?? os.tmpdir();
const name = world.bcast(rank === 0 ? path.join(dir, `tsmpi-io-errors-${process.pid}-${Date.now()}`) : null, 0) as string;
const missing = `${name}-missing`;

t.equal(MPI.FILE_NULL.Get_errhandler(), MPI.ERRORS_RETURN, 'FILE_NULL\'s handler is ERRORS_RETURN');
t.equal(MPI.ERR_NO_SUCH_FILE, 37, 'ERR_NO_SUCH_FILE has MPICH\'s number');
t.equal(MPI.ERR_AMODE, 21, 'ERR_AMODE has MPICH\'s number');
t.equal(MPI.Get_error_string(MPI.ERR_NO_SUCH_FILE), 'File does not exist', 'Get_error_string(ERR_NO_SUCH_FILE)');

t.throws(() => MPI.File.Open(world, missing, MPI.MODE_RDONLY), MPI.ERR_NO_SUCH_FILE, /^File\.Open: cannot open '.*-missing'/, 'Open of a missing file');
t.throws(() => MPI.File.Open(world, name, MPI.MODE_RDONLY | MPI.MODE_CREATE), MPI.ERR_AMODE, /^File\.Open: amode .*MODE_RDONLY cannot go with/, 'RDONLY|CREATE');
t.throws(() => MPI.File.Open(world, name, MPI.MODE_CREATE), MPI.ERR_AMODE, /exactly one of/, 'no access mode');
t.throws(() => MPI.File.Open(world, name, 1 << 20), MPI.ERR_AMODE, /amode must be MPI\.MODE_\* bits/, 'unknown amode bit');
t.throws(() => MPI.File.Open(world, '', MPI.MODE_RDONLY), MPI.ERR_BAD_FILE, /filename must be a non-empty string/, 'empty filename');
t.throws(() => MPI.File.Open(world, dir, MPI.MODE_RDWR), MPI.ERR_BAD_FILE, /cannot open/, 'a directory');
t.throws(() => MPI.File.Open(null as never, name), MPI.ERR_COMM, /comm must be an intracommunicator/, 'comm null');
t.throws(() => MPI.File.Delete(missing), MPI.ERR_NO_SUCH_FILE, /^File\.Delete: cannot delete/, 'Delete of a missing file');

// Open is collective: an amode that differs between ranks is refused on every rank.
if (world.size > 1) {
  t.throws(() => MPI.File.Open(world, name, rank === 0 ? MPI.MODE_RDWR | MPI.MODE_CREATE : MPI.MODE_WRONLY | MPI.MODE_CREATE),
    MPI.ERR_NOT_SAME, /^File\.Open: amode \d+ differs from rank \d+'s/, 'amode differing between ranks');
}

// MODE_EXCL: the second creation fails on every rank.
const f = MPI.File.Open(world, name, MPI.MODE_CREATE | MPI.MODE_EXCL | MPI.MODE_WRONLY);
t.equal(f.Get_errhandler(), MPI.ERRORS_RETURN, 'a new file takes FILE_NULL\'s handler');
t.throws(() => MPI.File.Open(world, name, MPI.MODE_CREATE | MPI.MODE_EXCL | MPI.MODE_RDWR), MPI.ERR_FILE_EXISTS, /cannot open/, 'MODE_EXCL on an existing file');
t.throws(() => f.Read_at(0, new Uint8Array(4)), MPI.ERR_ACCESS, /^File\.Read_at: the file was opened MPI\.MODE_WRONLY/, 'reading a WRONLY file');
t.throws(() => f.Write_at(-1, new Uint8Array(4)), MPI.ERR_ARG, /^File\.Write_at: offset must be a non-negative integer/, 'negative offset');
t.throws(() => f.Write_at(0, 'text' as never), MPI.ERR_BUFFER, /^File\.Write_at: buf: /, 'a string buffer');
t.throws(() => f.Set_view(0, MPI.INT, MPI.INT, 'big'), MPI.ERR_UNSUPPORTED_DATAREP, /datarep 'big' is not one of/, 'unknown datarep');
t.throws(() => f.Set_view(0, MPI.INT, MPI.BYTE), MPI.ERR_TYPE, /filetype MPI_BYTE .* is not built of etype MPI_INT/, 'filetype not of etype');
const uncommitted = MPI.INT.Create_contiguous(2);
t.throws(() => f.Set_view(0, MPI.INT, uncommitted), MPI.ERR_TYPE, /not committed/, 'uncommitted filetype');
uncommitted.Free();
t.throws(() => f.Set_view(-4, MPI.INT, MPI.INT), MPI.ERR_ARG, /disp must be a non-negative integer/, 'negative disp');
f.Set_view(0, MPI.INT, MPI.INT);
t.throws(() => f.Write_at(0, new Uint8Array(3)), MPI.ERR_TYPE, /not a whole number of etype MPI_INT/, 'a partial etype');
t.throws(() => f.Seek(0, 12345), MPI.ERR_ARG, /whence must be/, 'bad whence');
t.throws(() => f.Seek(-1, MPI.SEEK_SET), MPI.ERR_ARG, /before the start of the view/, 'Seek before the start');
t.throws(() => f.Iwrite_all([new Int32Array(1), 2, MPI.INT]), MPI.ERR_BUFFER, /^File\.Iwrite_all: buf: /, 'Iwrite_all of more than the buffer holds');
t.throws(() => f.Write_all_end(new Int32Array(1)), MPI.ERR_OTHER, /no Write_all_begin is pending/, 'an end without a begin');
t.throws(() => f.Set_errhandler(MPI.Comm.Create_errhandler(() => {})), MPI.ERR_ARG, /made for a communicator/, 'a communicator\'s handler on a file');

// A user handler is called with the file and the code, then the call throws.
const seen: number[] = [];
const handler = MPI.File.Create_errhandler((file, code) => { if (file === f) seen.push(code); });
f.Set_errhandler(handler);
t.throws(() => f.Read(new Uint8Array(4)), MPI.ERR_ACCESS, /WRONLY/, 'under a user handler');
t.equal(seen.length, 1, 'the user handler ran once');
t.equal(MPI.Get_error_class(seen[0]!), MPI.ERR_ACCESS, 'the user handler got the code');
f.Call_errhandler(MPI.ERR_IO);
t.equal(seen[1], MPI.ERR_IO, 'Call_errhandler runs the file\'s handler');
f.Close();
t.throws(() => f.Get_size(), MPI.ERR_FILE, /^File\.Get_size: the file has been closed/, 'a closed file');
t.throws(() => MPI.FILE_NULL.Get_amode(), MPI.ERR_FILE, /FILE_NULL is no open file/, 'FILE_NULL');

const r = MPI.File.Open(world, name, MPI.MODE_RDONLY);
t.throws(() => r.Write_at(0, new Uint8Array(4)), MPI.ERR_READ_ONLY, /^File\.Write_at: the file was opened MPI\.MODE_RDONLY/, 'writing a RDONLY file');
t.throws(() => r.Set_size(-1), MPI.ERR_ARG, /size must be a non-negative integer/, 'Set_size(-1)');
t.throws(() => r.Set_size(10), MPI.ERR_READ_ONLY, /^File\.Set_size: the file was opened MPI\.MODE_RDONLY/, 'Set_size of a RDONLY file');
t.throws(() => r.Preallocate(10), MPI.ERR_READ_ONLY, /^File\.Preallocate: /, 'Preallocate of a RDONLY file');
r.Close();

// Permission: a file nobody may read (root reads anything, so only as another user).
world.Barrier();
if (rank === 0) fs.chmodSync(name, 0o000);
world.Barrier();
if (process.getuid?.() !== 0) {
  t.throws(() => MPI.File.Open(world, name, MPI.MODE_RDONLY), MPI.ERR_ACCESS, /cannot open/, 'a file without permission');
}
world.Barrier();
if (rank === 0) fs.chmodSync(name, 0o644);
world.Barrier();

// FILE_NULL's handler is the one new files get.
MPI.FILE_NULL.Set_errhandler(handler);
const g = MPI.File.Open(world, name, MPI.MODE_RDONLY);
t.equal(g.Get_errhandler(), handler, 'a new file takes the handler set on FILE_NULL');
g.Close();
MPI.FILE_NULL.Set_errhandler(MPI.ERRORS_RETURN);
world.Barrier();
if (rank === 0) MPI.File.Delete(name);
world.Barrier();
t.check(!fs.existsSync(name), 'Delete removes the file');
MPI.Finalize();
t.finish(rank);
