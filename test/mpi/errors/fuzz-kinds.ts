import { MPI } from '../../../src/index.js';
import type { ApiCall, Param } from './fuzz-api.js';
import type { Fixtures } from './fuzz-fixtures.js';

/**
 * What the fuzzer knows about a parameter: a valid value (passed when another parameter is the
 * corrupted one), an oracle telling a valid value from a bad one (so a "bad" value that is in
 * fact valid, such as undefined for an optional parameter, is never demanded to fail), and the
 * error classes a bad value may raise. Kinds are told from the declared type where it names an
 * MPI class, else from the parameter's name; a parameter of no known kind is not corrupted
 * (the fuzzer lists such parameters, so a new name shows up in its report).
 */
export interface Kind {
  readonly name: string;
  valid(f: Fixtures, ctx: CallContext): unknown;
  isValid(v: unknown, f: Fixtures, ctx: CallContext): boolean;
  readonly classes: readonly number[];
}

/** The receiver a call is made on and what its arguments are judged against. */
export interface CallContext {
  readonly call: ApiCall;
  readonly receiver: unknown;
  /** Size of the group a rank argument addresses (the remote group of an intercommunicator). */
  readonly size: number;
  readonly isInter: boolean;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isInt32 = (v: unknown): v is number => isInt(v) && v >= -(2 ** 31) && v < 2 ** 31;
const isCount = (v: unknown): v is number => isInt32(v) && v >= 0;
const isData = (v: unknown): boolean => ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof SharedArrayBuffer;
const byteLen = (v: unknown): number => (v as { byteLength: number }).byteLength;

const liveType = (v: unknown): boolean => v instanceof MPI.Datatype && !v.isFreed && v !== MPI.DATATYPE_NULL;
const commitType = (v: unknown): boolean => liveType(v) && (v as InstanceType<typeof MPI.Datatype>).isCommitted;
const liveComm = (v: unknown, f: Fixtures): boolean => v instanceof MPI.Comm && v !== MPI.COMM_NULL && v !== f.freedComm;
const liveGroup = (v: unknown, f: Fixtures): boolean => v instanceof MPI.Group && v !== f.freedGroup;
const liveOp = (v: unknown, f: Fixtures): boolean => v instanceof MPI.Op && v !== f.freedOp;
const liveInfo = (v: unknown, f: Fixtures): boolean =>
  v === null || v === undefined || v === MPI.INFO_NULL || (v instanceof MPI.Info && v !== f.freedInfo);

/** A buffer argument as API.md defines it (contiguous and derived types, count within the data). */
function isBufSpec(v: unknown): boolean {
  if (isData(v)) return true;
  if (!Array.isArray(v) || !isData(v[0])) return false;
  const dt = v[v.length - 1];
  if ((v.length !== 2 && v.length !== 3) || !commitType(dt)) return false;
  const t = dt as InstanceType<typeof MPI.Datatype>;
  if (t.size === 0) return false;
  if (v.length === 2) return true;
  return isCount(v[1]) && v[1] * t.extent <= byteLen(v[0]);
}

const E = MPI;
const intKind = (name: string, classes: number[], ok: (v: unknown) => boolean = isInt32, value: unknown = 0): Kind =>
  ({ name, valid: () => value, isValid: ok, classes });

/** The v- and w-forms of the collectives: [buf, [counts, displs], datatype(s)]. */
function isBufSpecVW(v: unknown, w: boolean): boolean {
  if (!Array.isArray(v) || v.length !== 3 || !isData(v[0]) || !Array.isArray(v[1]) || v[1].length !== 2) return false;
  const [counts, displs] = v[1] as unknown[];
  const types = w ? v[2] : [v[2]];
  return Array.isArray(counts) && Array.isArray(displs) && counts.every(isCount) && displs.every(isCount) &&
    Array.isArray(types) && types.every(commitType);
}

/** The parameter's declared buffer form: 'V' and 'W' for the v- and w-collectives. */
function bufferForm(ctx: CallContext, name: string): '' | 'V' | 'W' {
  const type = ctx.call.params.find((p) => p.name === name)?.type ?? '';
  return /BufSpecW/.test(type) ? 'W' : /BufSpecV/.test(type) ? 'V' : '';
}

/** The buffer a call's valid arguments use: one element for the single-element RMA calls. */
function validBuffer(ctx: CallContext, name: string): unknown {
  const form = bufferForm(ctx, name);
  if (form !== '') return [new Int32Array(4), [[4], [0]], form === 'W' ? [MPI.INT] : MPI.INT];
  return /^(Fetch_and_op|Compare_and_swap)$/.test(ctx.call.name) ? new Int32Array(1) : new Int32Array(4);
}

/** A buffer argument: MPI.IN_PLACE is one where the declaration allows it. */
function bufferKind(name: string): Kind {
  return {
    name, classes: [E.ERR_BUFFER, E.ERR_TYPE, E.ERR_COUNT, E.ERR_ARG],
    valid: (_f, c) => validBuffer(c, name),
    isValid: (v, _f, c) => {
      const type = c.call.params.find((p) => p.name === name)?.type ?? '';
      if (v === MPI.IN_PLACE && /InPlace/.test(type)) return true;
      if (v === null && /null/.test(type)) return true;
      const form = bufferForm(c, name);
      return form === '' ? isBufSpec(v) : isBufSpecVW(v, form === 'W');
    },
  };
}

const KINDS: Record<string, Kind> = {
  memory: { name: 'memory', valid: () => new Uint8Array(64), isValid: isData,
    classes: [E.ERR_BUFFER, E.ERR_ARG, E.ERR_BASE, E.ERR_RMA_FLAVOR, E.ERR_RMA_ATTACH] },
  dest: { name: 'dest', valid: () => MPI.PROC_NULL, classes: [E.ERR_RANK],
    isValid: (v, _f, c) => isInt(v) && ((v >= 0 && v < c.size) || v === MPI.PROC_NULL) },
  source: { name: 'source', valid: () => MPI.PROC_NULL, classes: [E.ERR_RANK],
    isValid: (v, _f, c) => isInt(v) && ((v >= 0 && v < c.size) || v === MPI.PROC_NULL || v === MPI.ANY_SOURCE) },
  root: { name: 'root', valid: () => 0, classes: [E.ERR_ROOT], isValid: (v, _f, c) => isInt(v) && v >= 0 && v < c.size },
  rank: { name: 'rank', valid: () => 0, classes: [E.ERR_RANK], isValid: (v, _f, c) => isInt(v) && v >= 0 && v < c.size },
  targetRank: { name: 'targetRank', valid: () => 0, classes: [E.ERR_RANK],
    isValid: (v, _f, c) => isInt(v) && ((v >= 0 && v < c.size) || v === MPI.PROC_NULL) },
  sendTag: intKind('tag', [E.ERR_TAG], (v) => isInt(v) && v >= 0 && v <= 0x7fffffff),
  recvTag: intKind('tag', [E.ERR_TAG], (v) => isInt(v) && ((v >= 0 && v <= 0x7fffffff) || v === MPI.ANY_TAG)),
  status: { name: 'status', valid: () => new MPI.Status(), isValid: (v) => v === undefined || v === null || v instanceof MPI.Status,
    classes: [E.ERR_ARG] },
  statuses: { name: 'statuses', valid: () => undefined, classes: [E.ERR_ARG],
    isValid: (v) => v === undefined || v === null ||
      (Array.isArray(v) && v.every((s) => s === undefined || s === null || s instanceof MPI.Status)) },
  requests: { name: 'requests', valid: () => [], classes: [E.ERR_REQUEST, E.ERR_ARG],
    isValid: (v, _f, c) => Array.isArray(v) && v.every((r) => r instanceof (c.call.owner === 'Prequest' ? MPI.Prequest : MPI.Request)) },
  datatype: { name: 'datatype', valid: () => MPI.INT, isValid: liveType, classes: [E.ERR_TYPE, E.ERR_ARG] },
  types: { name: 'types', valid: () => [MPI.INT], classes: [E.ERR_TYPE, E.ERR_ARG, E.ERR_COUNT],
    isValid: (v) => Array.isArray(v) && v.length === 1 && v.every(liveType) },
  op: { name: 'op', valid: () => MPI.SUM, classes: [E.ERR_OP, E.ERR_ARG],
    isValid: (v, f, c) => liveOp(v, f) || (v === undefined && c.call.params.some((p) => p.name === 'op' && p.optional)) ||
      (typeof v === 'function' && /^[a-z]/.test(c.call.name)) },
  group: { name: 'group', valid: (f) => f.selfGroup, isValid: liveGroup, classes: [E.ERR_GROUP, E.ERR_ARG] },
  comm: { name: 'comm', valid: (f) => f.self, classes: [E.ERR_COMM, E.ERR_ARG],
    isValid: (v, f, c) => liveComm(v, f) && (c.call.name === 'Compare' || c.call.owner === 'Datatype' || !(v as InstanceType<typeof MPI.Comm>).Is_inter()) },
  info: { name: 'info', valid: (f) => f.info, isValid: liveInfo, classes: [E.ERR_INFO, E.ERR_ARG] },
  /** A count or size; a size too large to allocate may also be MPI.ERR_NO_MEM. */
  // Counts are JavaScript numbers up to 2^53 (MPI-4's large counts are the normal calls).
  count: intKind('count', [E.ERR_COUNT, E.ERR_ARG, E.ERR_SIZE, E.ERR_NO_MEM], (v) => Number.isSafeInteger(v) && (v as number) >= 0, 1),
  position: intKind('position', [E.ERR_ARG, E.ERR_COUNT, E.ERR_BUFFER], (v) => v === 0, 0),
  dispUnit: intKind('dispUnit', [E.ERR_DISP, E.ERR_ARG], (v) => isInt32(v) && v > 0, 1),
  int: intKind('int', [E.ERR_ARG, E.ERR_DISP]),
  /** MPI_Aint (byte displacements and extents): any safe integer. */
  aint: intKind('aint', [E.ERR_ARG, E.ERR_DISP],
    (v) => Number.isSafeInteger(v) || (typeof v === 'bigint' && Number.isSafeInteger(Number(v)))),
  color: intKind('color', [E.ERR_ARG], (v) => (isInt32(v) && v >= 0) || v === MPI.UNDEFINED),
  keyval: { name: 'keyval', valid: (f) => f.keyval, classes: [E.ERR_KEYVAL, E.ERR_ARG, E.ERR_OTHER],
    isValid: (v, f) => v === f.keyval || v === MPI.TAG_UB || v === MPI.HOST || v === MPI.IO || v === MPI.WTIME_IS_GLOBAL ||
      v === MPI.APPNUM || v === MPI.UNIVERSE_SIZE || v === MPI.WIN_BASE || v === MPI.WIN_SIZE || v === MPI.WIN_DISP_UNIT ||
      v === MPI.WIN_CREATE_FLAVOR || v === MPI.WIN_MODEL },
  direction: intKind('direction', [E.ERR_ARG, E.ERR_DIMS, E.ERR_TOPOLOGY], (v) => v === 0),
  assert: intKind('assert', [E.ERR_ASSERT, E.ERR_ARG], (v) => isInt(v) && v >= 0 && (v & ~0x7ff) === 0),
  lockType: intKind('lockType', [E.ERR_LOCKTYPE, E.ERR_ARG], (v) => v === MPI.LOCK_EXCLUSIVE || v === MPI.LOCK_SHARED,
    MPI.LOCK_SHARED),
  order: intKind('order', [E.ERR_ARG], (v) => v === MPI.ORDER_C || v === MPI.ORDER_FORTRAN, MPI.ORDER_C),
  splitType: intKind('splitType', [E.ERR_ARG], (v) => v === MPI.COMM_TYPE_SHARED || v === MPI.UNDEFINED, MPI.COMM_TYPE_SHARED),
  nthkey: intKind('n', [E.ERR_ARG], (v) => v === 0),
  string: { name: 'string', valid: () => 'fuzz', isValid: (v) => typeof v === 'string', classes: [E.ERR_ARG] },
  infoKey: { name: 'key', valid: () => 'fuzz', classes: [E.ERR_ARG, E.ERR_INFO_KEY, E.ERR_INFO_NOKEY],
    isValid: (v, _f, c) => typeof v === 'string' && v !== '' && v.length <= MPI.MAX_INFO_KEY && (c.call.name !== 'Delete' || v === 'fuzz') },
  infoValue: { name: 'value', valid: () => 'v', classes: [E.ERR_ARG, E.ERR_INFO_VALUE],
    isValid: (v) => typeof v === 'string' && v.length <= MPI.MAX_INFO_VAL },
  datarep: { name: 'datarep', valid: () => 'external32', isValid: (v) => v === 'external32',
    classes: [E.ERR_ARG, E.ERR_UNSUPPORTED_OPERATION] },
  handler: { name: 'handler', valid: () => MPI.ERRORS_RETURN, isValid: (v) => v instanceof MPI.Errhandler, classes: [E.ERR_ARG] },
  fn: { name: 'fn', valid: () => () => undefined, isValid: (v) => typeof v === 'function', classes: [E.ERR_ARG, E.ERR_OP] },
  copyFn: { name: 'copy_fn', valid: () => null, classes: [E.ERR_ARG],
    isValid: (v) => v === undefined || v === null || typeof v === 'function' || typeof v === 'boolean' },
  deleteFn: { name: 'delete_fn', valid: () => null, classes: [E.ERR_ARG],
    isValid: (v) => v === undefined || v === null || typeof v === 'function' },
  /** A value for the object forms: anything node:v8 can serialize (symbols and functions cannot be). */
  clonable: { name: 'obj', valid: () => 1, classes: [E.ERR_ARG, E.ERR_BUFFER],
    isValid: (v) => typeof v !== 'symbol' && typeof v !== 'function' },
  objs: { name: 'objs', valid: (_f, c) => new Array(c.size).fill(1), classes: [E.ERR_ARG, E.ERR_COUNT, E.ERR_BUFFER],
    isValid: (v, _f, c) => Array.isArray(v) && v.length === c.size && v.every((x) => typeof x !== 'symbol' && typeof x !== 'function') },
  target: { name: 'target', valid: () => undefined, classes: [E.ERR_DISP, E.ERR_COUNT, E.ERR_TYPE, E.ERR_ARG, E.ERR_RMA_RANGE],
    isValid: (v) => v === undefined || v === null || (isInt(v) && v >= 0 && v <= 48) || (Array.isArray(v) && v.length === 0) ||
      (Array.isArray(v) && v.length === 1 && isInt(v[0]) && v[0] >= 0 && v[0] <= 48) ||
      (Array.isArray(v) && v.length === 3 && isInt(v[0]) && v[0] >= 0 && isCount(v[1]) && commitType(v[2]) &&
        v[0] + v[1] * (v[2] as InstanceType<typeof MPI.Datatype>).extent <= 64) },
  targetDisp: intKind('targetDisp', [E.ERR_DISP, E.ERR_ARG, E.ERR_RMA_RANGE], (v) => isInt(v) && v >= 0 && v <= 60),
  /** An integer list whose valid values depend on the other arguments (see LISTS). */
  intList: { name: 'list', valid: () => [], isValid: () => false,
    classes: [E.ERR_ARG, E.ERR_RANK, E.ERR_DIMS, E.ERR_COUNT, E.ERR_TOPOLOGY, E.ERR_GROUP, E.ERR_TYPE] },
};

/**
 * Valid values of the parameters whose validity depends on the others (lists and the sizes
 * that go with them), per method, for the fixtures' one-rank communicators. The oracle of such a
 * parameter accepts exactly the value given here and values no list parameter takes (a
 * non-array, a list with a non-integer): anything else is neither demanded to fail nor passed.
 */
export const LISTS: Record<string, Record<string, unknown>> = {
  'Group#Incl': { ranks: [0] }, 'Group#Excl': { ranks: [0] },
  'Group#Range_incl': { ranks: [[0, 0, 1]] }, 'Group#Range_excl': { ranks: [[0, 0, 1]] },
  'Group#Translate_ranks': { ranks: [0] },
  'MPI#Compute_dims': { nnodes: 4, dims: [0, 0] },
  'Intracomm#Create_cart': { dims: [1], periods: [false] }, 'Intracomm#Cart_map': { dims: [1], periods: [false] },
  'Intracomm#Create_graph': { index: [1], edges: [0] }, 'Intracomm#Graph_map': { index: [1], edges: [0] },
  'Intracomm#Create_dist_graph_adjacent': { sources: [0], destinations: [0], sourceweights: null, destweights: null },
  'Intracomm#Create_dist_graph': { sources: [0], degrees: [1], destinations: [0], weights: null },
  'Cartcomm#Get_cart_rank': { coords: [0] }, 'Cartcomm#Sub': { remain_dims: [true] },
  'Datatype#Create_indexed': { blocklengths: [1, 2], displacements: [0, 3] },
  'Datatype#Create_hindexed': { blocklengths: [1, 2], displacements: [0, 12] },
  'Datatype#Create_indexed_block': { displacements: [0, 4] }, 'Datatype#Create_hindexed_block': { displacements: [0, 16] },
  'Datatype#Create_struct': { blocklengths: [1], displacements: [0] },
  'Datatype#Create_subarray': { sizes: [4], subsizes: [2], starts: [1] },
  'Datatype#Create_darray': { size: 1, rank: 0, gsizes: [4], distribs: [MPI.DISTRIBUTE_BLOCK], dargs: [MPI.DISTRIBUTE_DFLT_DARG],
    psizes: [1] },
  'Comm#Reduce_scatter': { recvcounts: [4] }, 'Comm#Ireduce_scatter': { recvcounts: [4] },
  'Comm#Reduce_scatter_init': { recvcounts: [4] },
};

const LIST_NAMES = new Set(['ranks', 'dims', 'periods', 'index', 'edges', 'sources', 'destinations', 'degrees', 'weights',
  'sourceweights', 'destweights', 'recvcounts', 'remain_dims', 'coords', 'blocklengths', 'displacements', 'sizes',
  'subsizes', 'starts', 'gsizes', 'distribs', 'dargs', 'psizes']);
/** List parameters that also take booleans or null (periods, remain_dims, the weights). */
const LOOSE_LISTS = new Set(['periods', 'remain_dims', 'weights', 'sourceweights', 'destweights']);

/** The LISTS entry for a call: looked up under its owner, then under the Comm classes it inherits from. */
export function listValues(call: ApiCall): Record<string, unknown> | undefined {
  for (const owner of [call.owner, 'Intracomm', 'Comm']) {
    const entry = LISTS[`${owner === 'MPI' ? 'MPI' : owner}#${call.name}`];
    if (entry !== undefined) return entry;
    if (!/comm$/i.test(call.owner)) break;
  }
  return undefined;
}

function listKind(name: string, exact: unknown): Kind {
  const base = KINDS.intList!;
  const loose = LOOSE_LISTS.has(name);
  const nested = name === 'ranks' && Array.isArray(exact) && Array.isArray(exact[0]);
  return {
    name, classes: base.classes, valid: () => structuredClone(exact),
    isValid: (v) => {
      if (v === undefined || v === null) return loose || (name === 'ranks' && exact === undefined);
      if (typeof v === 'number') return name === 'size' || name === 'rank' || loose;
      if (typeof v === 'boolean') return loose;
      if (!Array.isArray(v) && !ArrayBuffer.isView(v)) return false;
      const items = Array.from(v as ArrayLike<unknown>);
      if (nested) {
        const triplets = items.every((r) => Array.isArray(r) && r.length === 3 && r.every(isInt));
        return triplets && (items.length === 0 || JSON.stringify(v) === JSON.stringify(exact));
      }
      if (items.some((x) => !isInt(x) && !(loose && typeof x === 'boolean'))) return false;
      return true;
    },
  };
}

/**
 * The kind of a parameter, or null when the fuzzer does not corrupt it (then `reason` says why:
 * a boolean flag takes any value, a value for an attribute is any value).
 */
export function kindOf(call: ApiCall, p: Param): Kind | { reason: string } {
  const n = p.name.replace(/^_/, '');
  const t = p.type;
  const lists = listValues(call);
  if (lists !== undefined && n in lists) {
    if (LIST_NAMES.has(n)) return listKind(n, lists[n]);
    const exact = lists[n];
    return intKind(n, KINDS.intList!.classes as number[], (v) => v === exact, exact);
  }
  if (LIST_NAMES.has(n)) return { reason: 'a list parameter with no valid value in LISTS' };
  if (/^(high|reorder|commute)$/.test(n) || t === 'boolean') return { reason: 'a boolean flag (any value is truthy or falsy)' };
  if (call.owner === 'Request' && (n === 'onFulfilled' || n === 'onRejected')) return { reason: 'the promise protocol' };
  if (/Buf(Spec|ferLike)/.test(t) && /^(memory|location)$/.test(n)) return KINDS.memory!;
  if (/BufSpec/.test(t) || /^(buf|sendbuf|recvbuf|inbuf|inoutbuf|outbuf|origin|result|compare)$/.test(n)) {
    return call.owner === 'Datatype' || n === 'buf' && (call.owner === 'MPI' || call.name === 'Attach_buffer') ? KINDS.memory! : bufferKind(n);
  }
  if (/^(memory|location)$/.test(n)) return KINDS.memory!;
  switch (n) {
    case 'dest': return KINDS.dest!;
    case 'source': return KINDS.source!;
    case 'root': return KINDS.root!;
    case 'targetRank': return KINDS.targetRank!;
    case 'rank': return call.owner === 'Win' && call.name === 'Shared_query' ? KINDS.targetRank! : KINDS.rank!;
    case 'tag': return call.params.some((q) => q.name === 'source') && !call.params.some((q) => q.name === 'dest')
      ? KINDS.recvTag! : KINDS.sendTag!;
    case 'sendtag': return KINDS.sendTag!;
    case 'recvtag': return KINDS.recvTag!;
    case 'status': return KINDS.status!;
    case 'statuses': return KINDS.statuses!;
    case 'requests': return KINDS.requests!;
    case 'datatype': return KINDS.datatype!;
    case 'types': return KINDS.types!;
    case 'op': return KINDS.op!;
    case 'group': case 'group1': case 'group2': return KINDS.group!;
    // Message.Probe/Iprobe probe any communicator, an intercommunicator too (as Mprobe does).
    case 'comm': return call.owner === 'Message' ? ANY_COMM : KINDS.comm!;
    case 'peer_comm': return KINDS.comm!;
    case 'info': return call.name === 'Spawn_multiple' ? SPAWN_INFOS : KINDS.info!;
    case 'count': case 'size': case 'nnodes': case 'blocklength': return KINDS.count!;
    case 'position': return KINDS.position!;
    case 'dispUnit': return KINDS.dispUnit!;
    case 'lb': case 'extent': return KINDS.aint!;
    // Strides in elements are exact integers too since counts are large (MPI-4's large counts).
    case 'stride': return KINDS.aint!;
    case 'disp': case 'key': return call.owner === 'Info' ? infoKeyKind(n) : call.name === 'Aint_add' ? KINDS.aint! : KINDS.int!;
    case 'color': return KINDS.color!;
    case 'keyval': return KINDS.keyval!;
    case 'direction': return KINDS.direction!;
    case 'assert': return KINDS.assert!;
    case 'lockType': return KINDS.lockType!;
    case 'order': return KINDS.order!;
    case 'splitType': return KINDS.splitType!;
    case 'n': return KINDS.nthkey!;
    case 'name': return KINDS.string!;
    case 'value': return call.owner === 'Info' ? KINDS.infoValue! : { reason: 'an attribute value may be anything' };
    case 'datarep': return KINDS.datarep!;
    case 'handler': return KINDS.handler!;
    case 'fn': return KINDS.fn!;
    case 'copy_fn': return KINDS.copyFn!;
    case 'delete_fn': return KINDS.deleteFn!;
    case 'obj': case 'sendobj': return KINDS.clonable!;
    case 'objs': return KINDS.objs!;
    case 'target': return KINDS.target!;
    case 'targetDisp': return KINDS.targetDisp!;
    case 'v': return call.name === 'Set_error' ? KINDS.int! : KINDS.int!;
    case 'local_leader': case 'remote_leader': return KINDS.rank!;
    // MPI-4 and the error, address and session calls.
    case 'errorclass': case 'errorcode': return ERROR_CODE;
    case 'string': case 'stringtag': return KINDS.string!;
    case 'base': case 'addr1': case 'addr2': return KINDS.aint!;
    case 'level': return KINDS.int!;
    case 'errhandler': return ERRHANDLER_OR_NULL;
    case 'pset_name': return PSET_NAME;
    case 'partition': case 'partition_low': case 'partition_high': return PARTITION;
    case 'partitions': return /ArrayLike/.test(t) ? PARTITION_LIST : KINDS.count!;
    case 'other': return INFO_SOURCE;
    case 'args': return call.owner === 'Grequest' ? GREQ_ARGS : call.name === 'Spawn_multiple' ? SPAWN_ARGS : ENV_ARGS;
    case 'kwargs': return KWARGS;
    case 'query_fn': case 'free_fn': case 'cancel_fn': return CALLBACK_OR_NULL;
    case 'fallback': return { reason: 'a fallback is returned as given' };
    case 'session': return SESSION;
    case 'command': return call.name === 'Spawn_multiple' ? SPAWN_COMMANDS : SPAWN_COMMAND;
    case 'maxprocs': return call.name === 'Spawn_multiple' ? SPAWN_COUNTS : SPAWN_COUNT;
    case 'errcodes': return ERRCODES;
    case 'port_name': return PORT_NAME;
    case 'service_name': return SERVICE_NAME;
    case 'fd': return { reason: 'a connected socket: Join on a valid one waits for the process at its other end' };
    default: return { reason: `no kind for parameter ${p.name}: ${p.type || '?'}` };
  }
}

/** An error class or code: a predefined one, or one of Add_error_class / Add_error_code. */
const ERROR_CODE: Kind = {
  name: 'errorcode', valid: () => MPI.ERR_OTHER, classes: [E.ERR_ARG],
  isValid: (v) => {
    try {
      return typeof v === 'number' && MPI.Get_error_class(v) >= 0;
    } catch {
      return false;
    }
  },
};
const ERRHANDLER_OR_NULL: Kind = {
  name: 'errhandler', valid: () => null, classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || v instanceof MPI.Errhandler,
};
const ANY_COMM: Kind = {
  name: 'comm', valid: (f) => f.self, classes: [E.ERR_COMM, E.ERR_ARG],
  isValid: (v, f) => v instanceof MPI.Comm && v !== MPI.COMM_NULL && v !== f.freedComm,
};
const SESSION: Kind = {
  name: 'session', valid: (f) => f.session, classes: [E.ERR_SESSION, E.ERR_ARG],
  isValid: (v, f) => v === f.session,
};
/**
 * Dynamic processes. A valid command names no program, so that a call the fuzzer took for
 * invalid but is not would be refused by the process manager (MPI.ERR_SPAWN) instead of
 * starting a process that never connects.
 */
const NO_PROGRAM = '/nonexistent/tsmpi-fuzz-program';
const SPAWN_COMMAND: Kind = {
  name: 'command', valid: () => NO_PROGRAM, classes: [E.ERR_SPAWN, E.ERR_ARG], isValid: (v) => typeof v === 'string' && v !== '',
};
const SPAWN_COMMANDS: Kind = {
  name: 'commands', valid: () => [NO_PROGRAM], classes: [E.ERR_SPAWN, E.ERR_ARG],
  isValid: (v) => Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' && v[0] !== '',
};
const SPAWN_COUNT = intKind('maxprocs', [E.ERR_ARG], (v) => v === undefined || (isInt32(v) && v >= 1), 1);
const SPAWN_COUNTS: Kind = {
  name: 'maxprocs list', valid: () => [1], classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || (Array.isArray(v) && v.length === 1 && isInt32(v[0]) && v[0] >= 1),
};
const SPAWN_INFOS: Kind = {
  name: 'info list', valid: (f) => f.info, classes: [E.ERR_INFO, E.ERR_ARG],
  isValid: (v, f) => liveInfo(v, f) || (Array.isArray(v) && v.length === 1 && v[0] instanceof MPI.Info && liveInfo(v[0], f)),
};
const SPAWN_ARGS: Kind = {
  name: 'args lists', valid: () => null, classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || (Array.isArray(v) && v.length === 1 &&
    (v[0] === null || v[0] === undefined || (Array.isArray(v[0]) && v[0].every((x: unknown) => typeof x === 'string')))),
};
const ERRCODES: Kind = {
  name: 'errcodes', valid: () => null, classes: [E.ERR_ARG], isValid: (v) => v === undefined || v === null || Array.isArray(v),
};
const PORT_NAME: Kind = {
  name: 'port_name', valid: (f) => f.port, classes: [E.ERR_PORT, E.ERR_ARG],
  isValid: (v, f, c) => v === f.port || (typeof v === 'string' && v !== '' && /_name$/.test(c.call.name)),
};
const SERVICE_NAME: Kind = {
  name: 'service_name', valid: () => 'tsmpi-fuzz-service', classes: [E.ERR_SERVICE, E.ERR_NAME, E.ERR_ARG],
  isValid: (v) => typeof v === 'string' && v !== '' && !/\s/.test(v),
};

/** Grequest.Start: callbacks that may be null, the callbacks' arguments, mpi4py's keyword arguments. */
const CALLBACK_OR_NULL: Kind = { name: 'callback', valid: () => null, classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || typeof v === 'function' };
const GREQ_ARGS: Kind = { name: 'args', valid: () => null, classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || Array.isArray(v) };
const KWARGS: Kind = { name: 'kwargs', valid: () => null, classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v)) };
const PSET_NAME: Kind = {
  name: 'pset_name', valid: () => 'mpi://WORLD', classes: [E.ERR_ARG], isValid: (v) => v === 'mpi://WORLD' || v === 'mpi://SELF',
};
const PARTITION = intKind('partition', [E.ERR_ARG, E.ERR_REQUEST], (v) => isInt32(v) && v >= 0);
const PARTITION_LIST: Kind = {
  name: 'partitions', valid: () => [0], classes: [E.ERR_ARG, E.ERR_REQUEST],
  isValid: (v) => (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))
    && Array.from(v as ArrayLike<unknown>).every((x) => isInt32(x) && x >= 0),
};
/** Info.update's argument: an Info, a Map, [key, value] pairs or a plain object of strings. */
const INFO_SOURCE: Kind = {
  name: 'other', valid: () => ({ fuzz: 'v' }), classes: [E.ERR_ARG, E.ERR_INFO_KEY, E.ERR_INFO_VALUE],
  isValid: (v) => {
    const good = (x: unknown): boolean => typeof x === 'string' && x !== '';
    const pair = (x: unknown): boolean => Array.isArray(x) && x.length === 2 && good(x[0]) && good(x[1]);
    if (v instanceof MPI.Info) return true;
    if (v instanceof Map) return [...v].every(pair);
    if (Array.isArray(v)) return v.every(pair);
    return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every(good);
  },
};
const ENV_ARGS: Kind = {
  name: 'args', valid: () => null, classes: [E.ERR_ARG],
  isValid: (v) => v === undefined || v === null || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
};

function infoKeyKind(n: string): Kind {
  return n === 'key' ? KINDS.infoKey! : KINDS.int!;
}
