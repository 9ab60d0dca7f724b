// MPI.T performance variables under known traffic: every rank sends N eager and M rendezvous
// messages of odd sizes to its right neighbour; handles started around exactly that traffic
// must have moved by exactly N and M (and the bytes), summed over the devices as in mpid;
// a second session started later sees only its part; stop freezes, reset zeroes, write sets;
// the unexpected queue's level and high-water mark follow messages sent before their receives;
// Bcast calls show in the collective's counters, under the algorithm TSMPI_COLL_BCAST forces.
import { MPI } from '../../../src/index.js';
import { MTest } from '../util/mtest.js';

const t = new MTest();
const T = MPI.T;
const N = 11;
const M = 3;
const K = 5;

T.Init_thread();
const intCvar = (name: string): number => {
  const h = T.cvar_handle_alloc(T.cvar_get_index(name));
  const v = T.cvar_read(h);
  T.cvar_handle_free(h);
  return Number(v);
};
const eagerLimit = Math.min(intCvar('TSMPI_EAGER_MAX'), intCvar('TSMPI_SCI_EAGER_MAX'), intCvar('TSMPI_UCX_EAGER_MAX'));
const rndvFrom = Math.max(intCvar('TSMPI_EAGER_MAX'), intCvar('TSMPI_SCI_EAGER_MAX'), intCvar('TSMPI_UCX_EAGER_MAX')) + 1;
// A rank sees every layer's variables (MPI.T does not load them itself: the runtime does).
const cvarNames = new Set(Array.from({ length: T.cvar_get_num() }, (_, i) => T.cvar_get_info(i).name));
for (const name of ['TSMPI_SHMEM_SLOTS', 'TSMPI_SPIN_POLLS', 'TSMPI_COLL_BARRIER', 'TSMPI_SISCI_LIB', 'TSMPI_DEVICE',
  'TSMPI_PROGRESS', 'TSMPI_UCX_EAGER_MAX', 'TSMPI_STATS']) {
  t.check(cvarNames.has(name), `control variable ${name} is listed`);
}
const bcastHandle = T.cvar_handle_alloc(T.cvar_get_index('TSMPI_COLL_BCAST'));
const bcastChoice = String(T.cvar_read(bcastHandle));

const counter = (name: string) => T.pvar_get_index(name, T.PVAR_CLASS_COUNTER);
const session = T.pvar_session_create();
// Allocated and started before MPI.Init: the engine does not run yet, the handle reads 0.
const early = T.pvar_handle_alloc(session, counter('mpid_eager_sends'));
T.pvar_start(session, early);
t.equal(T.pvar_read(session, early), 0, 'eager sends before MPI.Init');

MPI.Init();
const comm = MPI.COMM_WORLD;
const { rank, size } = comm;
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;

const names = ['mpid_eager_sends', 'mpid_eager_bytes', 'mpid_rndv_sends', 'mpid_rndv_bytes', 'mpid_eager_fallbacks'];
// Warm-up traffic of MPI.Init went by while it ran; the exchanges start it again.
T.pvar_stop(session, early);
const handles = new Map(names.map((n) => [n, T.pvar_handle_alloc(session, counter(n))]));
const devices = ['self', 'ch_shmem', 'ch_sci', 'ch_ucx'];
const perDevice = devices.flatMap((d) => ['eager_sends', 'eager_bytes', 'rndv_sends', 'rndv_bytes']
  .map((what) => ({ what, h: T.pvar_handle_alloc(session, counter(`${d}_${what}`)) })));
const read = (n: string) => T.pvar_read(session, handles.get(n)!);
const deviceSum = (what: string) => perDevice.filter((x) => x.what === what).reduce((a, x) => a + T.pvar_read(session, x.h), 0);

const eagerSizes = Array.from({ length: N }, (_, i) => 1 + ((i * 977 + rank * 31) % Math.min(eagerLimit, 3001)));
const rndvSizes = Array.from({ length: M }, (_, i) => rndvFrom + 13 * i + rank);
const leftEager = Array.from({ length: N }, (_, i) => 1 + ((i * 977 + left * 31) % Math.min(eagerLimit, 3001)));
const leftRndv = Array.from({ length: M }, (_, i) => rndvFrom + 13 * i + left);

function exchange(): void {
  const recvs = [...leftEager, ...leftRndv].map((n, i) => comm.Irecv(new Uint8Array(n), left, i));
  comm.Barrier();
  T.pvar_start(session, T.PVAR_ALL_HANDLES);
  const sends = [...eagerSizes, ...rndvSizes].map((n, i) => comm.Isend(new Uint8Array(n).fill(i), right, i));
  MPI.Request.Waitall([...sends, ...recvs]);
  T.pvar_stop(session, T.PVAR_ALL_HANDLES);
}

T.pvar_reset(session, T.PVAR_ALL_HANDLES);
const second = T.pvar_session_create();
const secondEager = T.pvar_handle_alloc(second, counter('mpid_eager_sends'));
exchange();
const fallbacks = read('mpid_eager_fallbacks');
const eagerBytes = eagerSizes.reduce((a, b) => a + b, 0);
const rndvBytes = rndvSizes.reduce((a, b) => a + b, 0);
t.equal(read('mpid_eager_sends'), N - fallbacks, `eager sends (${fallbacks} fell back to rendezvous)`);
t.equal(read('mpid_rndv_sends'), M + fallbacks, 'rendezvous sends');
t.equal(read('mpid_eager_bytes') + read('mpid_rndv_bytes'), eagerBytes + rndvBytes, 'bytes sent');
if (fallbacks === 0) {
  t.equal(read('mpid_eager_bytes'), eagerBytes, 'eager bytes');
  t.equal(read('mpid_rndv_bytes'), rndvBytes, 'rendezvous bytes');
}
for (const what of ['eager_sends', 'eager_bytes', 'rndv_sends', 'rndv_bytes']) {
  t.equal(deviceSum(what), read(`mpid_${what}`), `${what} summed over the devices`);
}
t.equal(T.pvar_read(session, early), N - fallbacks, 'the handle allocated before MPI.Init counted the exchange');

// A second session, started only now, sees only the second exchange; the first, stopped, stays put.
T.pvar_start(second, secondEager);
const frozen = read('mpid_eager_sends');
exchange();
t.equal(read('mpid_eager_sends'), frozen + N - (read('mpid_eager_fallbacks') - fallbacks), 'the first session counted both exchanges');
const inSecond = T.pvar_read(second, secondEager);
t.check(inSecond >= N - (read('mpid_eager_fallbacks') - fallbacks), `the second session counts the second exchange (${inSecond})`);
t.check(inSecond < read('mpid_eager_sends'), 'the second session did not see the first exchange');
comm.Barrier();
t.equal(read('mpid_eager_sends'), frozen + N - (read('mpid_eager_fallbacks') - fallbacks), 'a stopped handle does not move with later traffic');

const h = handles.get('mpid_eager_sends')!;
T.pvar_write(session, h, 7);
t.equal(T.pvar_read(session, h), 7, 'written counter handle');
t.equal(T.pvar_readreset(session, h), 7, 'readreset returns the value');
t.equal(T.pvar_read(session, h), 0, 'readreset zeroed the handle');

// Collectives by algorithm.
const bcastVars: number[] = [];
for (let i = 0; i < T.pvar_get_num(); i++) if (T.pvar_get_info(i).name.startsWith('coll_bcast_')) bcastVars.push(i);
const bcast = bcastVars.map((i) => T.pvar_handle_alloc(session, i));
T.pvar_start(session, T.PVAR_ALL_HANDLES);
for (let root = 0; root < K; root++) comm.Bcast(new Float64Array(3 + root), root % size);
T.pvar_stop(session, T.PVAR_ALL_HANDLES);
t.equal(bcast.reduce((a, x) => a + T.pvar_read(session, x), 0), K, 'Bcast calls over every algorithm');
if (bcastChoice !== 'auto') {
  const forced = bcast.find((x) => T.pvar_get_info(x.index).name === `coll_bcast_${bcastChoice}`)!;
  t.equal(T.pvar_read(session, forced), K, `Bcast calls by ${bcastChoice} (TSMPI_COLL_BCAST)`);
}

// Errors.
t.throws(() => T.pvar_read(second, h), MPI.ERR_T_INVALID_HANDLE, /another session/, 'handle of another session');
T.pvar_handle_free(second, secondEager);
t.throws(() => T.pvar_read(second, secondEager), MPI.ERR_T_INVALID_HANDLE, /freed/, 'read of a freed handle');
T.pvar_session_free(second);
t.throws(() => T.pvar_handle_alloc(second, 0), MPI.ERR_T_INVALID_SESSION, /freed/, 'handle in a freed session');
t.throws(() => T.pvar_get_info(T.pvar_get_num()), MPI.ERR_T_INVALID_INDEX, /not in \[0, /, 'pvar index past the end');
t.throws(() => T.pvar_handle_alloc(session, -1), MPI.ERR_T_INVALID_INDEX, /index -1/, 'negative pvar index');
t.throws(() => T.pvar_get_index('mpid_eager_sends', T.PVAR_CLASS_LEVEL), MPI.ERR_T_INVALID_NAME, /mpid_eager_sends/, 'a counter asked as a level');
t.throws(() => T.cvar_write(bcastHandle, 'linear'), MPI.ERR_T_CVAR_SET_NEVER, /TSMPI_COLL_BCAST/, 'cvar write');

// Unexpected messages, last, when no other traffic comes (but the Barrier of MPI.Finalize that
// a faster rank starts over a network device): the left neighbour sends K before we receive.
const level = T.pvar_handle_alloc(session, T.pvar_get_index('mpid_unexpected_queue_length', T.PVAR_CLASS_LEVEL));
const highwater = T.pvar_handle_alloc(session, T.pvar_get_index('mpid_unexpected_queue_max', T.PVAR_CLASS_HIGHWATERMARK));
const unexpected = T.pvar_handle_alloc(session, counter('mpid_unexpected'));
T.pvar_start(session, unexpected);
comm.Barrier();
MPI.Request.Waitall(Array.from({ length: K }, (_, i) => comm.Isend(new Uint8Array(5 + i), right, 100 + i)));
// Messages of one sender arrive in order: when the last is there, all are.
while (!comm.Iprobe(left, 100 + K - 1));
const seen = T.pvar_read(session, level);
t.check(seen >= K && seen < K + size, `unexpected queue length with K messages waiting: ${seen}`);
t.check(T.pvar_read(session, highwater) >= seen, 'the high-water mark saw them');
t.check(T.pvar_read(session, unexpected) >= K, 'unexpected arrivals counted');
for (let i = 0; i < K; i++) comm.Recv(new Uint8Array(5 + i), left, 100 + i);
t.check(T.pvar_read(session, level) <= seen - K + size, 'receives took K messages out of the unexpected queue');
t.throws(() => T.pvar_start(session, level), MPI.ERR_T_PVAR_NO_STARTSTOP, /continuous/, 'start of a level');
t.throws(() => T.pvar_reset(session, level), MPI.ERR_T_PVAR_NO_WRITE, /cannot be written/, 'reset of a level');

T.pvar_session_free(session);
T.Finalize();
t.throws(() => T.pvar_get_num(), MPI.ERR_T_NOT_INITIALIZED, /not initialized/, 'after MPI.T.Finalize');
MPI.Finalize();
t.finish(rank);
