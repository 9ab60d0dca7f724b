// A TypeScript program: typed buffers, typed requests and statuses, typed objects and errors.
//   npx tsmpiexec -n 2 npx tsx examples/typed.ts         (run the .ts directly through tsx)
//   npx tsc && npx tsmpiexec -n 2 node dist/examples/typed.js   (or compile it first)
import { MPI, type Request, type Status } from 'tsmpi';

/** What rank 0 hands out: a plain object, sent with the lower-case (object) methods. */
interface Task {
  readonly id: number;
  readonly values: number[];
}

/** What each rank reports back. */
interface Result {
  readonly rank: number;
  readonly id: number;
  readonly sum: number;
}

MPI.Init();
const comm = MPI.COMM_WORLD;
const rank: number = comm.rank;
const size: number = comm.size;

// Typed buffers: the array's type is the MPI datatype (Float64Array -> MPI.DOUBLE).
const local = Float64Array.from({ length: 4 }, (_, i) => rank * 4 + i);
const total = new Float64Array(4);
comm.Allreduce(local, total, MPI.SUM);

// Objects: the object methods are generic. bcast returns the root's value on every rank (here
// T = Task[] | null, null being what the other ranks pass); gather gives the root a Result[]
// and every other rank null.
const tasks = comm.bcast<Task[] | null>(rank === 0 ? Array.from({ length: size }, (_, id): Task => ({ id, values: [id, id + 1, id + 2] })) : null, 0)!;
const task = tasks[rank]!;
const result: Result = { rank, id: task.id, sum: task.values.reduce((a, b) => a + b, 0) };
const results: Result[] | null = comm.gather(result, 0);

// A typed object request: irecv<T> yields the value to await, wait() and test().
const echo = comm.irecv<Result>((rank - 1 + size) % size, 9);
comm.send(result, (rank + 1) % size, 9);
const fromLeft: Result = echo.wait();

// Requests are PromiseLike<Status>: awaiting one gives the Status of the receive.
const right = (rank + 1) % size;
const left = (rank - 1 + size) % size;
const incoming = new Int32Array(2);
const requests: Request[] = [comm.Irecv(incoming, left, 5), comm.Isend(Int32Array.of(rank, rank * rank), right, 5)];
const status: Status = await requests[0]!;
MPI.Request.Waitall(requests.slice(1));

// Errors are MPI.Exception with an error class; under MPI.ERRORS_RETURN the call throws instead
// of ending the job (the default handler, MPI.ERRORS_ARE_FATAL, ends it with the message).
comm.Set_errhandler(MPI.ERRORS_RETURN);
let errorClass: number = MPI.SUCCESS;
try {
  comm.Send(local, size + 1); // no such rank
} catch (e: unknown) {
  if (!(e instanceof MPI.Exception)) throw e;
  errorClass = e.Get_error_class();
}
comm.Set_errhandler(MPI.ERRORS_ARE_FATAL);

console.log(`rank ${rank}: ${incoming[0]},${incoming[1]} from rank ${status.Get_source()} (tag ${status.Get_tag()}, ` +
  `${status.Get_count(MPI.INT)} ints); bad rank raised ${errorClass === MPI.ERR_RANK ? 'MPI.ERR_RANK' : String(errorClass)}; ` +
  `left neighbour's sum ${fromLeft.sum}`);
if (results !== null) {
  console.log(`Allreduce: [${Array.from(total).join(', ')}]`);
  for (const r of results) console.log(`result from rank ${r.rank}: task ${r.id}, sum ${r.sum}`);
}
MPI.Finalize();
