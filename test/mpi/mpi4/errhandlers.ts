/**
 * User error handlers and added error classes: Comm.Create_errhandler's function is called with
 * the communicator and the code, then the call throws; Dup keeps the handler; Call_errhandler
 * runs it with an added code; Add_error_class/code/string and Get_error_class/string; LASTUSEDCODE
 * follows; a freed handler and one made for another kind of object are refused; a window's
 * handler gets the window. After every error the job still communicates.
 */
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;

// Added classes and codes: numbered above ERR_LASTCODE, LASTUSEDCODE follows them.
const before = world.Get_attr(MPI.LASTUSEDCODE) as number;
t.check(before >= MPI.ERR_LASTCODE, `LASTUSEDCODE ${before} >= ERR_LASTCODE`);
const myClass = MPI.Add_error_class();
const myCode = MPI.Add_error_code(myClass);
const rankCode = MPI.Add_error_code(MPI.ERR_RANK);
t.check(myClass > MPI.ERR_LASTCODE && myCode > myClass && rankCode > myCode, 'added numbers ascend above ERR_LASTCODE');
t.equal(world.Get_attr(MPI.LASTUSEDCODE), rankCode, 'LASTUSEDCODE is the last added');
t.equal(MPI.Get_error_class(myCode), myClass, 'class of an added code');
t.equal(MPI.Get_error_class(rankCode), MPI.ERR_RANK, 'added code in a predefined class');
t.equal(MPI.Get_error_class(MPI.ERR_TAG), MPI.ERR_TAG, 'a predefined class is its own');
t.equal(MPI.Get_error_string(myCode), '', 'no string yet');
MPI.Add_error_string(myClass, 'the solver diverged');
MPI.Add_error_string(myCode, 'the solver diverged: NaN in the residual');
t.equal(MPI.Get_error_string(myClass), 'the solver diverged', 'class string');
t.equal(MPI.Get_error_string(myCode), 'the solver diverged: NaN in the residual', 'code string');
t.equal(MPI.Get_error_string(MPI.ERR_TRUNCATE), 'Message truncated', 'predefined string');
const e = new MPI.Exception(myCode);
t.equal(e.Get_error_class(), myClass, 'Exception(code).Get_error_class');
t.equal(e.Get_error_code(), myCode, 'Exception(code).Get_error_code');
t.equal(e.message, 'the solver diverged: NaN in the residual', 'Exception(code) message defaults to the string');
t.throws(() => MPI.Add_error_string(MPI.ERR_RANK, 'x'), MPI.ERR_ARG, /predefined strings cannot change/, 'predefined string');
t.throws(() => MPI.Add_error_code(123456), MPI.ERR_ARG, /errorclass number 123456 is no error class/, 'code in no class');
t.throws(() => MPI.Get_error_class(-5), MPI.ERR_ARG, /Get_error_class: errorcode number -5 is no error code/, 'class of no code');

// A user handler: called with (comm, code), then the call throws the MPI.Exception.
const seen: Array<[unknown, number]> = [];
const handler = MPI.Comm.Create_errhandler((comm, code) => { seen.push([comm, code]); });
const comm = world.Dup();
comm.Set_errhandler(handler);
t.equal(comm.Get_errhandler(), handler, 'Get_errhandler gives the user handler');
t.throws(() => comm.Send(new Int32Array(1), size + 3), MPI.ERR_RANK, /dest/, 'Send to a bad rank throws after the handler');
t.equal(seen.length, 1, 'handler called once');
t.equal(seen[0]?.[0], comm, 'handler gets the communicator');
t.equal(seen[0]?.[1], MPI.ERR_RANK, 'handler gets the code');
const dup = comm.Dup();
t.equal(dup.Get_errhandler(), handler, 'Dup keeps the handler');
t.throws(() => dup.Recv(new Int32Array(1), 0, -7), MPI.ERR_TAG, /tag/, 'bad tag on the dup');
t.equal(seen.length, 2, 'handler called for the dup');
t.equal(seen[1]?.[0], dup, 'with the dup');

// Call_errhandler: the handler runs with an added code and the call returns.
comm.Call_errhandler(myCode);
t.equal(seen.length, 3, 'Call_errhandler runs the handler');
t.equal(seen[2]?.[1], myCode, 'with the added code');
world.Set_errhandler(MPI.ERRORS_RETURN);
world.Call_errhandler(MPI.ERR_OTHER);
t.throws(() => world.Call_errhandler(987654), MPI.ERR_ARG, /errorcode number 987654 is no MPI error class or code/, 'Call_errhandler of no code');

// A handler that throws its own error: the error reaches the caller.
const throwing = MPI.Comm.Create_errhandler(() => { throw new RangeError('mine'); });
comm.Set_errhandler(throwing);
try {
  comm.Bcast(new Int32Array(1), size + 1);
  t.check(false, 'Bcast with a bad root did not throw');
} catch (err) {
  t.check(err instanceof RangeError && err.message === 'mine', `the handler's own error reaches the caller: ${String(err)}`);
}

// Freed handlers stay on their objects but cannot be set again; kinds must match.
handler.Free();
t.equal(dup.Get_errhandler(), handler, 'a freed handler stays where it was set');
t.throws(() => world.Set_errhandler(handler), MPI.ERR_ARG, /handler has been freed/, 'freed handler refused');
const winHandlerCalls: Array<[unknown, number]> = [];
const winHandler = MPI.Win.Create_errhandler((w, code) => { winHandlerCalls.push([w, code]); });
t.throws(() => world.Set_errhandler(winHandler), MPI.ERR_ARG, /made for a window and cannot be set on a communicator/, 'window handler on a comm');
const fileHandler = MPI.File.Create_errhandler(() => {});
t.check(fileHandler instanceof MPI.Errhandler, 'File.Create_errhandler makes an MPI.Errhandler');
t.throws(() => world.Set_errhandler(fileHandler), MPI.ERR_ARG, /made for a file and cannot be set on a communicator/, 'file handler on a comm');
t.throws(() => MPI.File.Create_errhandler(7 as never), MPI.ERR_ARG, /File\.Create_errhandler: errhandler_fn must be a function/, 'File.Create_errhandler of no function');
fileHandler.Free();
t.throws(() => world.Set_errhandler(42 as never), MPI.ERR_ARG, /handler must be an MPI\.Errhandler/, 'a number is no handler');
t.throws(() => MPI.Comm.Create_errhandler('f' as never), MPI.ERR_ARG, /errhandler_fn must be a function/, 'Create_errhandler of no function');
MPI.ERRORS_RETURN.Free();
world.Set_errhandler(MPI.ERRORS_RETURN); // a predefined handler survives Free
t.equal(world.Get_errhandler(), MPI.ERRORS_RETURN, 'predefined handler set after its Free');

// A window's handler gets the window.
const win = MPI.Win.Allocate(64, 1, MPI.INFO_NULL, world);
win.Set_errhandler(winHandler);
t.throws(() => win.Put(new Uint8Array(8), size + 2), MPI.ERR_RANK, /rank/, 'Put to a bad rank');
t.equal(winHandlerCalls.length, 1, 'window handler called');
t.equal(winHandlerCalls[0]?.[0], win, 'with the window');
t.throws(() => win.Set_errhandler(MPI.Comm.Create_errhandler(() => {})), MPI.ERR_ARG, /made for a communicator/, 'comm handler on a window');
win.Call_errhandler(myClass);
t.equal(winHandlerCalls.length, 3, 'the refused Set_errhandler went through the handler too');
t.equal(winHandlerCalls[2]?.[1], myClass, 'Win.Call_errhandler');
win.Free();

// The job still communicates: every rank's value round the ring and summed.
const sum = new Int32Array(1);
comm.Allreduce(Int32Array.of(rank + 1), sum, MPI.SUM);
t.equal(sum[0], (size * (size + 1)) / 2, 'Allreduce after the errors');
const got = new Int32Array(1);
comm.Sendrecv(Int32Array.of(rank), (rank + 1) % size, 5, got, MPI.ANY_SOURCE, 5);
t.equal(got[0], (rank + size - 1) % size, 'Sendrecv after the errors');
dup.Free();
comm.Free();
MPI.Finalize();
t.finish(rank);
