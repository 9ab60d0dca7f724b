/**
 * Threads, honestly: a worker_threads Worker that loads tsmpi cannot start MPI (an
 * MPI.Exception that says why and what to do), says Is_thread_main false, and the main thread's
 * MPI is untouched by it.
 */
import { Worker } from 'node:worker_threads';
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init_thread(MPI.THREAD_SERIALIZED);
t.equal(MPI.Query_thread(), MPI.THREAD_FUNNELED, 'SERIALIZED asked, FUNNELED given');
const { rank, size } = MPI.COMM_WORLD;
const moduleUrl = new URL('../../../src/index.js', import.meta.url).href;
const source = `
  const { parentPort } = require('node:worker_threads');
  import(${JSON.stringify(moduleUrl)}).then(({ MPI }) => {
    const out = { main: MPI.Is_thread_main() };
    try { MPI.Init(); out.init = 'no error'; } catch (e) { out.init = e instanceof MPI.Exception ? [e.Get_error_class(), e.message] : String(e); }
    try { MPI.Session.Init(); out.session = 'no error'; } catch (e) { out.session = e instanceof MPI.Exception ? e.message : String(e); }
    try { MPI.COMM_WORLD.Get_rank(); out.rank = 'no error'; } catch (e) { out.rank = e.message; }
    parentPort.postMessage(out);
  });`;
const result = await new Promise<{ main: boolean; init: unknown; session: string; rank: string }>((resolve, reject) => {
  const worker = new Worker(source, { eval: true });
  worker.once('message', resolve);
  worker.once('error', reject);
});
t.equal(result.main, false, 'Is_thread_main in a Worker');
const [errorClass, message] = result.init as [number, string];
t.equal(errorClass, MPI.ERR_OTHER, 'Init in a Worker: class');
t.check(/MPI\.Init: called in a worker_threads Worker\. tsmpi provides MPI\.THREAD_FUNNELED/.test(String(message)), `Init in a Worker: ${String(message)}`);
t.check(/MPI\.Session\.Init: called in a worker_threads Worker/.test(result.session), `Session.Init in a Worker: ${result.session}`);
t.check(/called in a worker_threads Worker/.test(result.rank), `other calls in a Worker: ${result.rank}`);
const sum = new Int32Array(1);
MPI.COMM_WORLD.Allreduce(Int32Array.of(rank), sum, MPI.SUM);
t.equal(sum[0], (size * (size - 1)) / 2, 'the main thread communicates');
MPI.Finalize();
t.finish(rank);
