// The object API: lower-case methods send any JS value (objects, arrays, Maps, Dates, typed
// arrays, ...), serialized with node:v8's structured clone, as mpi4py pickles Python objects.
//   npx tsmpiexec -n 3 node examples/objects.js
import { MPI } from 'tsmpi';

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;

// bcast: the root's value reaches everyone (the argument is ignored on the other ranks).
const config = comm.bcast(rank === 0 ? { steps: 3, label: 'demo', started: new Date(0) } : null, 0);

// send / recv: point to point with any value; recv returns the value.
if (size > 1) {
  if (rank === 0) {
    comm.send({ job: 'square', values: [1, 2, 3] }, 1, 7);
  } else if (rank === 1) {
    const status = new MPI.Status();
    const task = comm.recv(0, 7, status);      // source, tag, optional status
    console.log(`rank 1 received ${JSON.stringify(task)} from rank ${status.source}, tag ${status.tag}`);
  }
}

// gather: the root gets an array with one value per rank (null on the other ranks).
const reports = comm.gather({ rank, pid: process.pid, squares: [rank * rank] }, 0);

if (rank === 0) {
  console.log(`config on every rank: steps=${config.steps} label=${config.label} started=${config.started.toISOString()}`);
  for (const r of reports) console.log(`report from rank ${r.rank}: squares=${r.squares}`);
}
// Every rank checks what bcast gave it (a Date arrives as a Date, not as a string).
if (!(config.started instanceof Date) || config.steps !== 3) throw new Error(`rank ${rank}: bcast gave ${config}`);

MPI.Finalize();
