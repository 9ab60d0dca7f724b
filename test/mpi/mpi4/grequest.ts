/**
 * Generalized requests (MPI.Grequest): the order and arguments of query_fn, free_fn and
 * cancel_fn under every way of completing, freeing and cancelling; Complete from a timer ending
 * an await; blocking waits that only Complete could end raising MPI.ERR_REQUEST (and the request
 * still usable after); a Grequest mixed with receives in Waitall/Waitany/Waitsome/Testall while
 * messages go round the ring; callbacks that throw; bad arguments.
 */
import { MPI, type Grequest, type Status } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
MPI.Init();
const world = MPI.COMM_WORLD;
const { rank, size } = world;
world.Set_errhandler(MPI.ERRORS_RETURN);
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;

/** A request whose callbacks write what they were called with into `log`. */
function logged(log: string[], cancelFn = true): Grequest {
  return MPI.Grequest.Start(
    (status: Status, a: number, b: string, kw: { k: number }) => {
      log.push(`query ${a} ${b} ${kw.k}`);
      status.Set_source(rank + 100);
      status.Set_tag(77);
      status.Set_elements(MPI.DOUBLE, 3);
      status.Set_cancelled(true);
    },
    (a: number, b: string, kw: { k: number }) => log.push(`free ${a} ${b} ${kw.k}`),
    cancelFn ? (completed: boolean, a: number) => log.push(`cancel ${completed} ${a}`) : null,
    [rank, 'x'], { k: 9 });
}
const args = `${rank} x 9`;

// Complete then wait: query fills the status, then free; wait yields complete's value.
{
  const log: string[] = [];
  const g = logged(log);
  t.check(g.active, 'a started Grequest is active');
  t.check(!g.Test(), 'Test before Complete is false');
  const s0 = new MPI.Status();
  t.check(!g.Get_status(s0), 'Get_status before Complete is false');
  g.complete({ rank, list: [1, 2, 3] });
  t.equal(log.join('|'), '', 'complete runs no callback');
  const peek = new MPI.Status();
  t.check(g.Get_status(peek), 'Get_status after Complete is true');
  t.check(g.active, 'Get_status leaves the request active');
  t.equal(log.join('|'), `query ${args}`, 'Get_status ran query_fn only');
  const st = new MPI.Status();
  const value = g.wait(st) as { rank: number; list: number[] };
  t.equal(value.rank, rank, 'wait yields the value given to complete');
  t.equal(value.list.length, 3, 'wait yields the value itself');
  t.equal(log.join('|'), `query ${args}|query ${args}|free ${args}`, 'wait: query_fn then free_fn, once each');
  t.equal(st.Get_source(), rank + 100, 'status source from query_fn');
  t.equal(st.Get_tag(), 77, 'status tag from query_fn');
  t.equal(st.Get_count(MPI.DOUBLE), 3, 'status count from query_fn');
  t.check(st.Is_cancelled(), 'cancelled as query_fn set it (there is a cancel_fn)');
  t.check(!g.active, 'inactive after wait');
  const again = new MPI.Status();
  g.Wait(again);
  t.equal(again.Get_source(), MPI.PROC_NULL, 'a second Wait gives the empty status');
  t.equal(log.length, 3, 'a second Wait runs no callback');
}

// No cancel_fn: the cancelled flag query_fn sets is cleared; the status preset reaches query_fn.
{
  const log: string[] = [];
  const seen: number[] = [];
  const g = MPI.Grequest.Start((s: Status) => {
    seen.push(s.Get_source(), s.Get_tag(), s.Get_count(MPI.BYTE), s.Get_error(), s.Is_cancelled() ? 1 : 0);
    s.Set_cancelled(true);
  }, null, null);
  g.Complete();
  const st = new MPI.Status();
  t.equal(g.wait(st), null, 'Complete (no value) yields null');
  t.equal(seen.join(','), `${MPI.ANY_SOURCE},${MPI.ANY_TAG},0,${MPI.SUCCESS},0`, 'the status query_fn starts from');
  t.check(!st.Is_cancelled(), 'without a cancel_fn the request is never cancelled');
  t.equal(log.length, 0, 'no callbacks but query_fn');
}

// Freed before Complete: free_fn runs at Complete, query_fn never.
{
  const log: string[] = [];
  const g = logged(log);
  g.Free();
  t.check(!g.active, 'Free makes the handle inactive');
  t.equal(log.length, 0, 'Free of an incomplete request runs nothing yet');
  g.Complete();
  t.equal(log.join('|'), `free ${args}`, 'Complete after Free runs free_fn only');
}

// Freed after Complete (never waited): free_fn at Free.
{
  const log: string[] = [];
  const g = logged(log);
  g.Complete();
  g.Free();
  t.equal(log.join('|'), `free ${args}`, 'Free of a complete request runs free_fn only');
}

// Cancel before and after Complete; Test completes.
{
  const log: string[] = [];
  const g = logged(log);
  g.Cancel();
  g.Complete();
  g.Cancel();
  const st = new MPI.Status();
  t.check(g.Test(st), 'Test after Complete is true');
  t.equal(log.join('|'), `cancel false ${rank}|cancel true ${rank}|query ${args}|free ${args}`, 'cancel_fn(completed), then Test');
  t.check(st.Is_cancelled(), 'Test fills the status from query_fn');
}

// Blocking waits that only Complete could end raise ERR_REQUEST, and the request stays usable.
{
  const log: string[] = [];
  const g = logged(log);
  t.throws(() => g.Wait(), MPI.ERR_REQUEST, /Request\.Wait: .*generalized request that is not complete/, 'Wait on an incomplete Grequest');
  t.throws(() => MPI.Request.Waitany([g]), MPI.ERR_REQUEST, /Request\.Waitany: /, 'Waitany on only an incomplete Grequest');
  const inactive = MPI.Grequest.Start();
  inactive.Complete();
  inactive.Wait();
  t.throws(() => MPI.Request.Waitsome([g, inactive]), MPI.ERR_REQUEST, /Request\.Waitsome: /, 'Waitsome on only an incomplete Grequest');
  t.check(!MPI.Request.Testall([g]), 'Testall on an incomplete Grequest is false');
  t.equal(log.length, 0, 'the failed waits ran no callback');
  t.check(g.active, 'still active after the failed waits');
  g.Complete();
  g.Wait();
  t.equal(log.join('|'), `query ${args}|free ${args}`, 'Wait after Complete');
}

// Mixed with traffic round the ring: Waitany/Waitsome wait for the receive while the
// Grequest is incomplete; Waitall finishes both once it is complete.
for (let round = 0; round < 3; round++) {
  const g = MPI.Grequest.Start(null, null, null);
  const into = new Float64Array(5);
  const recv = world.Irecv(into, left, 40 + round);
  world.Send(Float64Array.from({ length: 5 }, (_, i) => rank * 10 + i + round), right, 40 + round);
  const st = new MPI.Status();
  const i = round === 1 ? MPI.Request.Waitsome([g, recv])?.[0] : MPI.Request.Waitany([g, recv], st);
  t.equal(i, 1, `round ${round}: the wait returned the receive, not the incomplete Grequest`);
  t.equal(into[4], left * 10 + 4 + round, `round ${round}: received data`);
  if (round === 0) t.equal(st.Get_source(), left, 'Waitany status is the receive\'s');
  g.complete(round);
  const values = MPI.Request.waitall([g, recv]);
  t.equal(values[0], round, `round ${round}: waitall yields the Grequest's value`);
}

// An await ends when a timer completes the request; Waitall then sees it inactive.
{
  const log: string[] = [];
  const g = logged(log);
  const into = new Int32Array(3);
  const recv = world.Irecv(into, left, 60);
  setTimeout(() => g.complete(`late ${rank}`), 30);
  setTimeout(() => world.Send(Int32Array.of(left, rank, right), right, 60), 10);
  const started = Date.now();
  const [value] = await Promise.all([g, recv]);
  t.equal(value, `late ${rank}`, 'await yields the value given to complete from a timer');
  t.check(Date.now() - started >= 25, 'the await did not end before the timer');
  t.equal(into[1], left, 'the receive awaited beside it');
  t.equal(log.join('|'), `query ${args}|free ${args}`, 'await ran query_fn then free_fn');
  MPI.Request.Waitall([g, recv]);
}

// A lone await: only Complete's ring of the rank's own doorbell can end its sleep before the
// safety-net timeout (TSMPI_SLEEP_TIMEOUT_MS, 1000 ms by default).
{
  const lone = MPI.Grequest.Start();
  const started = Date.now();
  setTimeout(() => lone.complete('lone'), 20);
  t.equal(await lone, 'lone', 'await of a lone Grequest');
  const took = Date.now() - started;
  t.check(took >= 15 && took < 500, `a lone await ended ${took} ms after it began (Complete at 20 ms)`);
}

// Callbacks that throw: a plain error becomes ERR_OTHER, an MPI.Exception keeps its class;
// free_fn still runs and the request ends inactive.
{
  const log: string[] = [];
  const g = MPI.Grequest.Start(() => { throw new Error('query broke'); }, () => log.push('free'), null);
  g.Complete();
  t.throws(() => g.Wait(), MPI.ERR_OTHER, /^Request\.Wait: the generalized request's callback raised: Error: query broke/, 'query_fn throwing');
  t.equal(log.join('|'), 'free', 'free_fn ran after the failed query_fn');
  t.check(!g.active, 'inactive after the failed Wait');
  const h = MPI.Grequest.Start(null, () => { throw new MPI.Exception(MPI.ERR_IN_STATUS); }, null);
  h.Complete();
  t.throws(() => h.Test(), MPI.ERR_IN_STATUS, /./, 'free_fn throwing an MPI.Exception');
  const c = MPI.Grequest.Start(null, null, () => { throw new TypeError('no'); });
  t.throws(() => c.Cancel(), MPI.ERR_OTHER, /^Request\.Cancel: .*TypeError: no/, 'cancel_fn throwing');
  c.Complete();
  t.throws(() => c.Complete(), MPI.ERR_REQUEST, /already complete/, 'Complete twice');
  c.Wait();
}

// Bad arguments.
t.throws(() => MPI.Grequest.Start('query' as never, null, null), MPI.ERR_ARG, /query_fn must be a function or null, got/, 'query_fn a string');
t.throws(() => MPI.Grequest.Start(null, null, null, 'a' as never), MPI.ERR_ARG, /args must be an array/, 'args a string');
t.throws(() => MPI.Grequest.Start(null, null, null, [], [1] as never), MPI.ERR_ARG, /kwargs must be an object/, 'kwargs an array');

// The job is still fine after the raised errors: a collective over all ranks.
const total = new Int32Array(1);
world.Allreduce(Int32Array.of(1), total, MPI.SUM);
t.equal(total[0], size, 'an Allreduce after the errors');
MPI.Finalize();
t.finish(rank);
