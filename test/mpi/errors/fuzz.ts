import { MPI } from '../../../src/index.js';
import { runtime } from '../../../src/mpir/runtime.js';
import { MTest } from '../util/mtest.js';
import { type ApiCall, publicApi } from './fuzz-api.js';
import { type Fixtures, badPool, freeFixtures, makeFixtures } from './fuzz-fixtures.js';
import { type CallContext, type Kind, kindOf } from './fuzz-kinds.js';

/**
 * Bad input everywhere (issue 17): thousands of calls of every public function and method, each
 * with one argument replaced by a wrong value (wrong type, undefined, negative, too large, freed
 * or foreign objects, the wrong kind of communicator) and the others valid, or made on a freed
 * or null object. Under MPI.ERRORS_RETURN every such call must raise MPI.Exception with a fitting
 * error class and a message naming the call and the argument; no rank may crash or hang; after
 * the storm the job communicates correctly and no request or message is left behind.
 *
 * Every rank runs the same sequence (TSMPI_FUZZ_SEED, else argv[2], else a seed from the clock,
 * broadcast from rank 0 and printed), so the collectives a call might reach would be entered by
 * every rank; they are made on communicators over COMM_SELF all the same, and the ranks check
 * at the end that they all raised the same classes. TSMPI_FUZZ_CALLS sets the number of calls
 * (default 3000), TSMPI_FUZZ_TRACE=1 prints each call before it is made, TSMPI_FUZZ_SKIP=<regex>
 * leaves out the calls it matches (while one that crashes is investigated).
 */

/**
 * Calls never made, and why. Everything else public is fuzzed; a call with no parameter is
 * fuzzed only on a freed or null object.
 */
const SKIP: Record<string, string> = {
  'MPI.Init': 'starts MPI', 'MPI.Init_thread': 'starts MPI', 'MPI.Finalize': 'ends MPI',
  'MPI.Abort': 'ends the job by design', 'Comm.Abort': 'ends the job by design',
  'MPI.Detach_buffer': 'no arguments; waits for the buffered sends of the program',
  'Request.then': 'the promise protocol, not an MPI call',
  'Session.Finalize': 'ends the session the other calls are made on',
};

/** Arguments that must be passed as they are in a valid call, by method (leaders of Create_intercomm). */
function overrides(call: ApiCall, f: Fixtures): Record<string, unknown> {
  if (call.name === 'Create_intercomm') {
    const partner = (f.world.rank ^ 1) < f.world.size ? f.world.rank ^ 1 : f.world.rank - 1;
    return { local_leader: 0, peer_comm: f.world, remote_leader: partner };
  }
  return {};
}

const seed = Number(process.env.TSMPI_FUZZ_SEED ?? process.argv[2] ?? 0) >>> 0;
const callCount = Number(process.env.TSMPI_FUZZ_CALLS ?? 3000);
const trace = process.env.TSMPI_FUZZ_TRACE === '1';
/** Calls (labels as traced, `MPI.MPI.Compute_dims`) to leave out while investigating one that crashes. */
const skipPattern = process.env.TSMPI_FUZZ_SKIP ? new RegExp(process.env.TSMPI_FUZZ_SKIP) : null;

/** mulberry32: small, seedable, the same sequence on every rank. */
function prng(s: number): () => number {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

MPI.Init();
const t = new MTest();
const world = MPI.COMM_WORLD;
world.Set_errhandler(MPI.ERRORS_RETURN);
MPI.COMM_SELF.Set_errhandler(MPI.ERRORS_RETURN);
const runSeed = world.bcast(seed === 0 ? (Date.now() & 0x7fffffff) | 1 : seed, 0);
if (world.rank === 0) console.log(`fuzz seed ${runSeed} (rerun with TSMPI_FUZZ_SEED=${runSeed}), ${callCount} calls per rank`);
const random = prng(runSeed);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

const f = makeFixtures();
for (const c of [f.selfDup, f.cart, f.graph, f.distgraph]) c.Set_errhandler(MPI.ERRORS_RETURN);
const baseline = pendingOperations();
const pool = badPool(f);

interface Target {
  readonly call: ApiCall;
  readonly receiver: unknown;
  readonly label: string;
  readonly size: number;
  readonly isInter: boolean;
  /** The error class a call on this (freed or null) receiver raises; null for a live receiver. */
  readonly freedClass: number | null;
}

const isP2p = (c: ApiCall) => c.params.some((p) => p.name === 'dest' || p.name === 'source');
const ROOT_LOCAL = /^(Get_|Set_|Delete_attr$|Compare$|Is_|rank$|size$|remote_)/;

function receiversOf(call: ApiCall): Target[] {
  const t = (receiver: unknown, label: string, size = 1, isInter = false, freedClass: number | null = null): Target =>
    ({ call, receiver, label, size, isInter, freedClass });
  if (call.isStatic) return [t(call.owner === 'MPI' ? MPI : (MPI as unknown as Record<string, unknown>)[call.owner], `MPI.${call.owner}`)];
  switch (call.owner) {
    case 'Comm': case 'Intracomm': {
      const out = [t(f.selfDup, 'selfdup'), t(MPI.COMM_SELF, 'self'), t(f.freedComm, 'freed comm', 1, false, MPI.ERR_COMM),
        t(MPI.COMM_NULL, 'COMM_NULL', 1, false, MPI.ERR_COMM)];
      if (isP2p(call)) out.push(t(world, 'world', world.size));
      if (f.inter !== null && (isP2p(call) || ROOT_LOCAL.test(call.name))) out.push(t(f.inter, 'inter', (f.inter as InstanceType<typeof MPI.Intercomm>).Get_remote_size(), true));
      return out;
    }
    case 'Intercomm': return [];
    case 'Cartcomm': return [t(f.cart, 'cart')];
    case 'Graphcomm': return [t(f.graph, 'graph')];
    case 'Distgraphcomm': return [t(f.distgraph, 'distgraph')];
    case 'Group': return [t(f.selfGroup, 'group'), t(f.freedGroup, 'freed group', 1, false, MPI.ERR_GROUP)];
    case 'Datatype': return [t(MPI.INT, 'INT'), t(f.vector, 'vector'), t(f.freedType, 'freed type', 1, false, MPI.ERR_TYPE)];
    case 'Op': return [t(f.userOp, 'user op'), t(f.freedOp, 'freed op', 1, false, MPI.ERR_OP)];
    case 'Info': return [t(f.info, 'info'), t(f.freedInfo, 'freed info', 1, false, MPI.ERR_INFO)];
    case 'Request': return [t(f.request, 'request')];
    case 'Prequest': return [t(f.prequest, 'prequest')];
    case 'Message': return [t(world.Mprobe(MPI.PROC_NULL), 'message')];
    case 'Status': return [t(new MPI.Status(), 'status')];
    // Attach and Detach need a dynamic window (on another, any memory is MPI.ERR_RMA_FLAVOR).
    case 'Win': return [t(/^(Attach|Detach)$/.test(call.name) ? f.dynamicWin : f.win, 'win'),
      t(f.freedWin, 'freed win', 1, false, MPI.ERR_WIN)];
    case 'Session': return [t(f.session, 'session'), t(f.finalizedSession, 'finalized session', 1, false, MPI.ERR_SESSION)];
    default: return [];
  }
}

/**
 * Members that legitimately work on a freed object: they report on the handle itself, as the
 * plain fields size, extent and lb of a Datatype do (ub and combiner are getters beside them).
 */
const FREED_OK = /^(isFreed|isCommitted|predefined|ub|combiner|Get_name|Get_errhandler|Set_errhandler|Is_commutative)$/;

// ----------------------------------------------------------------- the plan

const api = publicApi();
const uncovered = new Map<string, string>();
const targets: Target[] = [];
for (const call of api) {
  const id = `${call.owner}.${call.name}`;
  if (SKIP[id] !== undefined || SKIP[`Comm.${call.name}`] !== undefined && /comm$/i.test(call.owner)) continue;
  if (call.owner === 'Errhandler' || call.owner === 'Exception') continue;
  if (call.name === 'Create_intercomm' && world.size === 1) continue;
  for (const target of receiversOf(call)) {
    if (target.freedClass !== null && (FREED_OK.test(call.name) || call.isStatic)) continue;
    if (target.freedClass === null && call.params.length === 0) continue;
    targets.push(target);
  }
  for (const p of call.params) {
    const k = kindOf(call, p);
    if ('reason' in k && k.reason.startsWith('no kind')) uncovered.set(`${id}(${p.name})`, k.reason);
  }
}

// ---------------------------------------------------------------- the storm

type Finding = 'accepted' | 'js-error' | 'wrong-class' | 'call-unnamed' | 'arg-unnamed' | 'other';
const findings = new Map<string, { kind: Finding; count: number; example: string }>();
const byKind = new Map<Finding, number>();
let made = 0;
let skippedValid = 0;
let sequenceHash = 0;

function note(kind: Finding, key: string, example: string): void {
  byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  const entry = findings.get(key);
  if (entry) entry.count++;
  else findings.set(key, { kind, count: 1, example });
}

function show(v: unknown): string {
  if (typeof v === 'symbol') return 'Symbol()';
  if (typeof v === 'function') return 'function';
  if (typeof v === 'bigint') return `${v}n`;
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${(v as unknown as { length?: number }).length ?? v.byteLength})`;
  if (typeof v === 'object' && v !== null) {
    const name = (v as { constructor?: { name?: string } }).constructor?.name ?? 'Object';
    if (v === MPI.COMM_NULL) return 'COMM_NULL';
    if (v === f.freedComm || v === f.freedGroup || v === f.freedType || v === f.freedOp || v === f.freedInfo || v === f.freedWin) {
      return `freed ${name}`;
    }
    return name;
  }
  return JSON.stringify(v) ?? String(v);
}

const norm = (s: string) => s.toLowerCase().replace(/[_\s]/g, '');

/** Frees what a call that should have failed made, so one finding does not cascade. */
function release(value: unknown): void {
  try {
    if (value instanceof MPI.Request) {
      if (value.active) value.Free();
    } else if (value instanceof MPI.Comm && value !== MPI.COMM_NULL && value !== world && value !== MPI.COMM_SELF) value.Free();
    else if (value instanceof MPI.Group && value !== MPI.GROUP_EMPTY) value.Free();
    else if (value instanceof MPI.Datatype && !value.predefined) value.Free();
    else if (value instanceof MPI.Win && value !== f.win) value.Free();
    else if (value instanceof MPI.Info && value !== MPI.INFO_NULL && value !== f.info) value.Free();
  } catch { /* a half-made object: nothing more to do */ }
}

function invoke(target: Target, args: unknown[]): unknown {
  const recv = target.receiver as Record<string, unknown>;
  if (target.call.isGetter) return recv[target.call.name];
  return (recv[target.call.name] as (...a: unknown[]) => unknown).apply(recv, args);
}

/** One call: either one corrupted argument (index >= 0) or valid arguments on a freed receiver. */
function fuzzOne(target: Target): void {
  const call = target.call;
  const ctx: CallContext = { call, receiver: target.receiver, size: target.size, isInter: target.isInter };
  const kinds = call.params.map((p) => kindOf(call, p));
  const fixed = overrides(call, f);
  const args = call.params.map((p, i) => {
    if (p.name in fixed) return fixed[p.name];
    const k = kinds[i]!;
    return 'reason' in k ? undefined : k.valid(f, ctx);
  });
  let corrupt = -1;
  let kind: Kind | null = null;
  if (target.freedClass === null) {
    const candidates = kinds.map((k, i) => ('reason' in k || call.params[i]!.name in fixed ? -1 : i)).filter((i) => i >= 0);
    if (candidates.length === 0) return;
    corrupt = pick(candidates);
    kind = kinds[corrupt] as Kind;
    const p = call.params[corrupt]!;
    const bad = pick(pool);
    const undefinedOk = bad === undefined && (p.optional || /undefined/.test(p.type));
    // null where the declaration takes it (`group: Group | null = null`: mpi4py's None).
    const nullOk = bad === null && /\bnull\b/.test(p.type);
    if (undefinedOk || nullOk || kind.isValid(bad, f, ctx)) {
      skippedValid++;
      return;
    }
    args[corrupt] = bad;
  }
  // Trailing undefined arguments are left out, as a program would write the call.
  while (args.length > 0 && args[args.length - 1] === undefined && corrupt !== args.length - 1) args.pop();
  const what = `${target.label}.${call.name}(${args.map(show).join(', ')})`;
  if (skipPattern?.test(what)) return;
  if (trace) process.stdout.write(`rank ${world.rank} call ${made}: ${what}\n`);
  made++;
  const arg = corrupt >= 0 ? call.params[corrupt]!.name : '';
  const key = `${call.owner}.${call.name}${arg ? ` ${arg}` : ' on freed'}`;
  let result: unknown;
  try {
    result = invoke(target, args);
  } catch (e) {
    if (!(e instanceof MPI.Exception)) {
      note('js-error', `${key}: ${(e as Error)?.name}`, `${what} threw ${String(e).split('\n')[0]}`);
      sequenceHash = (Math.imul(sequenceHash, 31) + 999) | 0;
      return;
    }
    if (!target.isInter) sequenceHash = (Math.imul(sequenceHash, 31) + e.error_class) | 0;
    // The fixture window is in a Lock_all epoch: a synchronization call may raise that first.
    const inEpoch = target.receiver === f.win && /^(Start|Post|Fence|Lock|Lock_all)$/.test(call.name) ? [MPI.ERR_RMA_SYNC as number] : [];
    const classes = [...(kind?.classes ?? [target.freedClass!]), ...inEpoch];
    if (!classes.includes(e.error_class)) {
      note('wrong-class', `${key}: class ${e.error_class}`, `${what}: class ${e.error_class}, expected one of ${classes.join('/')}: ${e.message}`);
    } else if (!norm(e.message).includes(norm(call.name))) {
      note('call-unnamed', key, `${what}: ${e.message}`);
    } else if (arg && !inEpoch.includes(e.error_class) && !norm(e.message).includes(norm(arg.replace(/^_/, ''))) && !/argument \d/.test(e.message)) {
      note('arg-unnamed', key, `${what}: ${e.message}`);
    }
    return;
  }
  sequenceHash = (Math.imul(sequenceHash, 31) + 1000) | 0;
  note('accepted', key, `${what} returned ${show(result)}`);
  release(result);
}

for (let i = 0; i < callCount; i++) fuzzOne(pick(targets));

// ------------------------------------------------------------------ report

const total = [...byKind.values()].reduce((a, b) => a + b, 0);
if (world.rank === 0) {
  console.log(`${targets.length} (call, object) pairs from ${api.length} public members; ${made} calls made, ` +
    `${skippedValid} drawn values were valid and skipped`);
  for (const [name, reason] of uncovered) console.log(`not corrupted: ${name}: ${reason}`);
  if (total > 0) {
    console.log(`findings by kind: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    for (const [key, v] of [...findings].sort((a, b) => a[0].localeCompare(b[0]))) {
      console.log(`  ${v.kind} x${v.count} ${key}\n      e.g. ${v.example}`);
    }
  }
}
t.check(total === 0, `${total} bad calls did not raise a fitting MPI.Exception naming call and argument`);

// ------------------------------------------------- the job is still usable

const hashes = world.allgather(sequenceHash);
t.check(hashes.every((h) => h === hashes[0]), `ranks raised different classes for the same sequence: ${hashes.join(', ')}`);
checkCommunication();
freeFixtures(f);
t.check(pendingOperations() <= baseline, `pending operations grew from ${baseline} to ${pendingOperations()}`);
world.Barrier();
const rank = world.rank;
MPI.Finalize();
t.finish(rank);

function pendingOperations(): number {
  return runtime.requireRunning('fuzz').engine.describePending().length;
}

/** Point-to-point in a ring, a collective and a window epoch, each checked. */
function checkCommunication(): void {
  const n = world.size;
  const right = (world.rank + 1) % n;
  const left = (world.rank - 1 + n) % n;
  const got = new Float64Array(1000);
  const out = new Float64Array(1000).map((_, i) => world.rank * 1000 + i);
  world.Sendrecv(out, right, 5, got, left, 5);
  t.check(got.every((v, i) => v === left * 1000 + i), 'ring Sendrecv after the storm');
  const sum = new Int32Array(3);
  world.Allreduce(Int32Array.of(world.rank, 1, 2), sum, MPI.SUM);
  t.check(sum[0] === (n * (n - 1)) / 2 && sum[1] === n && sum[2] === 2 * n, `Allreduce after the storm: ${sum.join(',')}`);
  const mem = new Int32Array(n);
  const win = MPI.Win.Create(mem, 4, MPI.INFO_NULL, world);
  win.Fence();
  win.Put(Int32Array.of(world.rank + 100), right, [world.rank, 1, MPI.INT]);
  win.Fence();
  win.Free();
  t.check(mem[left] === left + 100, `Put in a fence epoch after the storm: ${mem.join(',')}`);
}
