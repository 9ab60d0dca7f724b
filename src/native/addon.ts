/**
 * The native addon (native/: prebuilt in the package, or built by node-gyp at install): what
 * JavaScript cannot do on its own.
 *
 * - Shared segments: POSIX shared memory in /dev/shm as SharedArrayBuffers, unmapped when
 *   garbage-collected. Names are per job and random; segments are mode 0600.
 * - Futexes across processes on a cell of such a buffer, synchronous (the blocking paths of the
 *   progress engine) and asynchronous (a native waiter thread settles a promise; nothing polls).
 * - Single copy between processes (process_vm_readv/writev), with a probe that says whether the
 *   kernel allows it here, so the shmem device can fall back to a pipelined copy.
 * - CRC-32 (IEEE 802.3, as zlib) for the SCI short rings.
 * - Blocking sockets for the PMI bootstrap, which is synchronous because MPI.Init() is.
 * - A binding of UCX's UCP (the section "UCX" at the end), for a network device.
 *
 * Errors: every error the addon throws has a string `code`. A failed system call throws an
 * `Error` whose code is the errno name ('ENOSPC', 'EEXIST', 'ENOENT', 'EPERM', ...), with `errno`
 * (negative, as in Node's fs errors) and `syscall`; a bad argument throws a `TypeError` (wrong kind)
 * or `RangeError` (out of range) with code 'EINVAL'. Messages name the call, the argument, its
 * value and what was expected. Branch on `code`, never on the message.
 *
 * Addresses are plain numbers: x86-64 user addresses are below 2^47, exact in a double, and a
 * number costs no allocation where a BigInt would.
 */
import type { SocketBinding } from './socket-binding.js';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Result of a futex wait, with the meanings of `Atomics.wait`. */
export type FutexWaitResult = 'ok' | 'not-equal' | 'timed-out';

/** Whether single copy works against one process, and the errno name when it does not. */
export interface CmaProbeResult {
  /** True if one byte could be read from the target process. */
  readonly ok: boolean;
  /**
   * '' when `ok`; otherwise why not: 'EPERM' (Yama ptrace_scope, seccomp, another user),
   * 'ENOSYS' (kernel without the calls), 'ESRCH' (no such process), 'EFAULT' (bad address).
   */
  readonly errno: string;
}

/** Anything whose bytes the addon can address directly. */
export type BufferLike = ArrayBufferView | ArrayBuffer | SharedArrayBuffer;

/** The shape of every error the addon throws. */
export interface NativeError extends Error {
  /** The errno name of a failed system call, or 'EINVAL' for a bad argument. */
  readonly code: string;
  /** The negated errno value, for system errors only. */
  readonly errno?: number;
  /** The failed system call, for system errors only. */
  readonly syscall?: string;
}

/** The functions of tsmpi.node (native/build/Release or prebuilds/<platform>-<arch>). */
export interface NativeAddon extends UcxBinding, SocketBinding {
  /**
   * Creates a shared segment `/dev/shm/<name>` of `size` bytes, mode 0600 whatever the umask,
   * reserves all its pages and maps them (pre-faulted) into this process; a `sparse` segment
   * gets neither, and its ranges are backed as they come into use (shmPrepare).
   *
   * @param name 1 to 200 characters of `[A-Za-z0-9._-]`, not `.` or `..`; the addon adds the '/'.
   * @param size bytes, an integer in [1, 2^40].
   * @returns the mapping; it is unmapped when the buffer is garbage-collected.
   * @throws code 'EEXIST' if the segment exists, 'ENOSPC' if /dev/shm cannot hold it (nothing is
   *   left behind), 'EINVAL' for a bad name or size.
   */
  shmCreate(name: string, size: number, sparse?: boolean): SharedArrayBuffer;

  /**
   * Maps an existing segment whole (its size from the file), pre-faulted unless `sparse`.
   *
   * @throws code 'ENOENT' if there is no such segment, 'EINVAL' if it is empty or the name is bad.
   */
  shmOpen(name: string, sparse?: boolean): SharedArrayBuffer;

  /**
   * Backs `length` bytes of a sparse segment from `offset` (grown to whole pages) with memory and
   * maps them into this process (MADV_POPULATE_WRITE), so later stores take no page fault.
   *
   * @throws code 'ENOSPC' when /dev/shm cannot back the range (nothing else changes), 'EINVAL'
   *   for a range past the buffer.
   */
  shmPrepare(buffer: SharedArrayBuffer, offset: number, length: number): void;

  /**
   * Removes a segment's name; mappings stay valid until unmapped.
   *
   * @returns true if it was removed, false if it did not exist.
   * @throws any other failure (e.g. 'EACCES').
   */
  shmUnlink(name: string): boolean;

  /** The memory of `buffer` as a plain ArrayBuffer that keeps it alive: memmove copies, not relaxed-atomic ones (shm.cc). */
  shmPlainView(buffer: SharedArrayBuffer): ArrayBuffer;

  /**
   * Sleeps while `cells[index] === expected`, across processes (not FUTEX_PRIVATE), blocking
   * this thread (including the main thread, unlike `Atomics.wait`). Signals do not shorten it.
   *
   * @param cells an Int32Array over a SharedArrayBuffer (TypeError otherwise).
   * @param index an integer in [0, cells.length).
   * @param expected compared after ToInt32, as `Atomics.wait` does.
   * @param timeoutMs milliseconds; negative, Infinity or NaN for no timeout.
   * @returns 'ok' when woken (possibly spuriously: re-check the cell), 'not-equal' if the cell
   *   did not hold `expected`, 'timed-out' if the timeout passed.
   */
  futexWait(cells: Int32Array, index: number, expected: number, timeoutMs: number): FutexWaitResult;

  /**
   * Wakes up to `count` waiters (any process) sleeping on `cells[index]`.
   *
   * @param count an integer in [0, 2^31 - 1], or Infinity for all.
   * @returns how many were woken.
   */
  futexWake(cells: Int32Array, index: number, count: number): number;

  /** sched_yield(2): another runnable thread of this CPU runs first (a peer sharing the core), if any. */
  schedYield(): void;

  /**
   * Moves the calling thread to SCHED_BATCH (no wake-up preemption); true once it runs under it,
   * false when it ran under a policy other than SCHED_OTHER, which is left as it was.
   */
  schedBatch(): boolean;

  /** membarrier(2) REGISTER_GLOBAL_EXPEDITED: whether this process now takes part in fenceOthers. */
  membarrierRegister(): boolean;
  /** membarrier(2) GLOBAL_EXPEDITED: a full barrier on every CPU running a registered process. */
  fenceOthers(): void;

  /** SIGKILL when the parent ends (PR_SET_PDEATHSIG), or at once if getppid() is no longer `parentPid`. */
  endWithParent(parentPid: number): boolean;
  /** Whether this JavaScript runs on the process's main thread (not in a worker_threads Worker). */
  onMainThread(): boolean;

  /**
   * `futexWait` on a native waiter thread; the promise settles on the event loop. While it is
   * pending the event loop stays alive. Waiter threads are pooled: idle ones are reused, new ones
   * start only when none is idle, and at most a few idle ones are kept. A result known at once
   * ('not-equal', or 'timed-out' for a zero timeout) settles without a thread.
   */
  futexWaitAsync(
    cells: Int32Array,
    index: number,
    expected: number,
    timeoutMs: number,
  ): Promise<FutexWaitResult>;

  /** Diagnostic: native waiter threads alive in this environment (idle or waiting). */
  futexWaiterThreads(): number;

  /**
   * The address of the first byte of `view` (byteOffset included), for another process's
   * `cmaRead`/`cmaWrite`. Moves a small on-heap typed array's storage off-heap first, so the
   * address stays valid while the buffer is alive. 0 may be returned for an empty buffer.
   */
  addressOf(view: BufferLike): number;

  /**
   * Copies `local.byteLength` bytes from address `remoteAddr` of process `pid` into `local`
   * (process_vm_readv), continuing after partial transfers.
   *
   * @returns bytes copied (always `local.byteLength`).
   * @throws code 'EPERM' (not allowed to ptrace-attach), 'ESRCH' (no such process), 'EFAULT'
   *   (range not mapped there); the message says how many bytes had moved.
   */
  cmaRead(pid: number, local: ArrayBufferView, remoteAddr: number): number;

  /** As `cmaRead`, in the other direction (process_vm_writev). */
  cmaWrite(pid: number, local: ArrayBufferView, remoteAddr: number): number;

  /**
   * Scatter/gather read. Each list is `count` (address, length) pairs in a Float64Array
   * ([addr0, len0, addr1, len1, ...]), refilled in place by the caller so no call allocates;
   * local addresses come from `addressOf`. The lists are two byte streams paired in order, as
   * the kernel pairs them; lists longer than IOV_MAX are split over several calls.
   *
   * @returns bytes copied: the smaller of the two lists' totals.
   */
  cmaReadv(
    pid: number,
    localIov: Float64Array,
    localCount: number,
    remoteIov: Float64Array,
    remoteCount: number,
  ): number;

  /** As `cmaReadv`, in the other direction. */
  cmaWritev(
    pid: number,
    localIov: Float64Array,
    localCount: number,
    remoteIov: Float64Array,
    remoteCount: number,
  ): number;

  /** Tries to read one byte at `remoteAddr` of `pid`: can single copy be used here? */
  cmaProbe(pid: number, remoteAddr: number): CmaProbeResult;

  /**
   * Copies `count` blocks of `blockLen` bytes, block i from src[srcOff + i*srcStride] to
   * dst[dstOff + i*dstStride] (strides may be negative): the datatype engine's gather and
   * scatter of a vector level in one call.
   *
   * @throws RangeError (code 'EINVAL') when a block would lie outside either buffer.
   */
  stridedCopy(src: BufferLike, srcOff: number, srcStride: number, dst: BufferLike, dstOff: number, dstStride: number,
              blockLen: number, count: number): void;

  /**
   * Copies src[srcOff .. srcOff+len) to dst[dstOff ..) (memmove): stridedCopy's one-block case,
   * with the five arguments a call can take without allocating (common/copy.ts).
   *
   * @throws RangeError (code 'EINVAL') when either range lies outside its buffer.
   */
  copyRange(src: BufferLike, srcOff: number, dst: BufferLike, dstOff: number, len: number): void;

  /**
   * inout[i] = in[i] op inout[i] over `count` elements (predefined MPI ops; bit-identical to
   * src/mpir/op.ts's loops). op: 0 SUM, 1 PROD, 2 MAX, 3 MIN, 4 LAND, 5 LOR, 6 LXOR, 7 BAND,
   * 8 BOR, 9 BXOR; kind: 0 int8, 1 uint8, 2 int16, 3 uint16, 4 int32, 5 uint32, 6 int64,
   * 7 uint64, 8 float32, 9 float64, 10 bool. Operands may be unaligned.
   *
   * @throws RangeError (code 'EINVAL') for an op not defined on the kind or operands too short.
   */
  reduce(op: number, kind: number, inBytes: BufferLike, inoutBytes: BufferLike, count: number): void;

  /**
   * CRC-32 of IEEE 802.3 (reflected, polynomial 0xEDB88320; equal to zlib's), by PCLMULQDQ
   * folding where the CPU has it and slicing-by-8 otherwise.
   *
   * @param offset first byte, default 0.
   * @param length bytes, default the rest of `buf` (RangeError past its end).
   * @param init the CRC of the bytes before, to chain: crc32(b, 0, b.length, crc32(a)) equals
   *   the CRC of a followed by b. Default 0.
   * @returns the CRC as an unsigned 32-bit number.
   */
  crc32(buf: BufferLike, offset?: number, length?: number, init?: number): number;

  /**
   * Installs a native handler for signal `signo` (SA_RESTART): it adds 1 to `flag[flagIndex]`,
   * rings the cell given to stateSignalBell (add 1, FUTEX_WAKE), and wakes the event loop, which
   * then calls `onRequest` (on this thread, when the loop turns). Async-signal-safe only; the
   * event-loop handle is unreferenced. Installing again from the same thread replaces the
   * callback and flag.
   *
   * @throws code 'EBUSY' if another thread (a Worker) installed it; 'EINVAL' for bad arguments.
   */
  stateSignalInstall(signo: number, flag: Int32Array, flagIndex: number, onRequest: () => void): void;

  /**
   * The futex cell the handler rings, so a sleep on it ends when the signal comes; null unarms it
   * (before its memory may be unmapped). The array is kept alive while armed.
   *
   * @throws code 'EINVAL' if stateSignalInstall was not called first.
   */
  stateSignalBell(cells: Int32Array | null, index?: number): void;
}

/**
 * The package root: the nearest directory above this file with a package.json (dist/ and src/ have
 * none), so the same code works from src/ and dist/src/, in a clone and under node_modules.
 */
function packageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/**
 * The addon's path. A build from source (native/build/Release, what a clone's `npm install` or
 * `npm rebuild tsmpi` makes) wins over the prebuilt binary the package carries for this
 * platform-arch (prebuilds/, the same places scripts/install.mjs looks at). The SISCI emulation
 * library is found by the addon itself, beside its own file. When neither is there the error
 * says what to run: `npm rebuild tsmpi` for an installed package, `npm install` in a clone.
 */
function findAddon(): string {
  const root = packageRoot(path.dirname(fileURLToPath(import.meta.url)));
  const candidates = [
    path.join(root, 'native', 'build', 'Release', 'tsmpi.node'),
    path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'tsmpi.node'),
  ];
  const found = candidates.find((p) => fs.existsSync(p));
  if (found !== undefined) return found;
  const installed = root.split(path.sep).includes('node_modules');
  throw new Error(
    `tsmpi: the native addon is missing: none of ${candidates.join(', ')} exists ` +
      `(no prebuilt addon for ${process.platform}-${process.arch} in this package, and it was not built from source). ` +
      (installed
        ? 'Run `npm rebuild tsmpi` in your project (it builds the addon; that needs g++, make and python3).'
        : `Run \`npm install\` in ${root} (it builds the addon; that needs g++, make and python3).`),
  );
}

/** Loads the addon, saying which file failed and how to build one that fits when it does not load. */
function loadAddon(file: string): NativeAddon {
  try {
    return require(file) as NativeAddon;
  } catch (e) {
    const prebuilt = file.split(path.sep).includes('prebuilds');
    throw new Error(
      `tsmpi: the native addon ${file} does not load: ${(e as Error).message}` +
        (prebuilt ? '; build one for this machine with `npm rebuild tsmpi --build-from-source` (needs g++, make and python3)' : ''),
      { cause: e },
    );
  }
}

const require = createRequire(import.meta.url);

/** The loaded addon. */
export const addon: NativeAddon = loadAddon(findAddon());

// =====================================================================================
// UCX: a binding of UCP (libucp), the network engine of the ch_ucx device (issue 15).
// =====================================================================================
//
// libucp is loaded with dlopen on first use (ucxProbe, ucxLoad or ucxContextCreate), never at
// addon load: a single-host job never loads UCX. A build without UCX's headers, or a machine
// without libucp.so.0, has the same functions; they throw Error{code: 'ENOSYS'} whose message
// says what to install. Loading keeps the process's own handlers of SIGSEGV/SIGBUS/SIGILL/SIGFPE
// (libucs installs its own, which would break WebAssembly's bounds traps) unless the user set
// UCX_ERROR_SIGNALS. UCX reads its UCX_* environment variables (UCX_TLS, UCX_NET_DEVICES, ...)
// at ucxContextCreate.
//
// Shape: one worker per rank (UCS_THREAD_MODE_SINGLE: every call on the thread that created
// it), endpoints from a peer's worker address bytes (they travel in business cards), active
// messages that carry an opaque header (at most maxHeader bytes) and a payload.
//
// Results without a callback per message: every operation returns 0 (done now: buffers may be
// reused), 1 (pending: a completion carrying the caller's token will come), or a negative
// ucs_status_t (failed now; ucxStatusName names it). Pending operations, and arriving
// messages, are reported during ucxProgress into two rings that the worker made and
// JavaScript reads in place (UcxWorkerRings): a completion queue of 4-word entries and an inbox
// of records that hold each message's header and, up to inlineMax bytes, its payload. Larger
// messages arrive as descriptors: ucxAmRecv receives one into the buffer the receiver chose
// (zero-copy from the sender for a rendezvous), ucxAmDiscard drops it. Reading the rings
// allocates nothing; the layout is UCX_CTL_* / UCX_REC_* / UCX_CQ_* below. A buffer handed to
// a pending operation is kept alive by the binding until its completion, but must not be
// modified (a source) or read (a destination) before it.
//
// Handles are opaque Externals, freed when closed and unreferenced; using a closed one throws
// code 'EBADF'. Closing a parent closes its children (context > worker > endpoint > remote key;
// context > memory map); the environment's teardown closes whatever is left.

declare const ucxHandle: unique symbol;
/** An opaque UCX handle of kind K. */
export type UcxHandle<K extends string> = { readonly [ucxHandle]: K };
export type UcxContext = UcxHandle<'context'>;
export type UcxWorker = UcxHandle<'worker'>;
export type UcxEndpoint = UcxHandle<'endpoint'>;
export type UcxMem = UcxHandle<'mem'>;
export type UcxRkey = UcxHandle<'rkey'>;

/** What ucxProbe found. */
export interface UcxProbeResult {
  /** True when libucp loaded and has everything the binding uses. */
  readonly available: boolean;
  /** '' when available; else why not, naming the package to install. */
  readonly reason: string;
  /** UCX's version ('1.13.1'), '' when not loaded. */
  readonly version: string;
  /** The libucp file loaded, '' when not loaded. */
  readonly library: string;
}

/** Context features (UCP_FEATURE_* values). The binding's messages need AM. */
export const UCX_FEATURE_TAG = 1;
export const UCX_FEATURE_RMA = 2;
export const UCX_FEATURE_AMO32 = 4;
export const UCX_FEATURE_AMO64 = 8;
export const UCX_FEATURE_WAKEUP = 16;
export const UCX_FEATURE_AM = 64;

/** ucxAmSend flags. */
export const UCX_SEND_EAGER = 1; // UCP_AM_SEND_FLAG_EAGER: never rendezvous
export const UCX_SEND_RNDV = 2; // UCP_AM_SEND_FLAG_RNDV: always rendezvous (the receiver pulls into its buffer)
export const UCX_SEND_IMMEDIATE = 4; // complete within the call or fail with UCS_ERR_NO_RESOURCE (-2): nothing pending

/** ucxAtomic operations (ucp_atomic_op_t values); fetching when a result buffer is given. */
export const UCX_AMO_ADD = 0;
export const UCX_AMO_SWAP = 1;
export const UCX_AMO_CSWAP = 2;
export const UCX_AMO_AND = 3;
export const UCX_AMO_OR = 4;
export const UCX_AMO_XOR = 5;

/** UCS_ERR_NO_RESOURCE: UCX_SEND_IMMEDIATE could not complete now. */
export const UCS_ERR_NO_RESOURCE = -2;
/** UCX's status for a peer that stopped answering (its keepalive, or tsmpi's peer watch). */
export const UCS_ERR_ENDPOINT_TIMEOUT = -80;

/**
 * Words of UcxWorkerRings.control. Counters are uint32 that wrap: read them with `| 0`
 * arithmetic and compare for equality. The native side writes the HEADs (and the counts),
 * JavaScript the TAILs.
 */
export const UCX_CTL_INBOX_HEAD = 0; // inbox bytes ever written
export const UCX_CTL_INBOX_TAIL = 1; // inbox bytes consumed (JavaScript writes it after handling records)
export const UCX_CTL_CQ_HEAD = 2; // completions ever written
export const UCX_CTL_CQ_TAIL = 3; // completions consumed (JavaScript writes it)
export const UCX_CTL_INBOX_SPILLED = 4; // records waiting natively (inbox full); moved in by ucxProgress
export const UCX_CTL_CQ_SPILLED = 5; // completions waiting natively (queue full)
export const UCX_CTL_EP_FAILURES = 6; // endpoints of this worker that failed so far
export const UCX_CTL_DROPPED = 7; // arriving messages dropped (not from a tsmpi peer, or no memory)
export const UCX_CTL_INBOX_BYTES = 8; // the inbox's size, a power of two
export const UCX_CTL_CQ_SLOTS = 9; // the completion queue's slots, a power of two
export const UCX_CONTROL_WORDS = 16;

/**
 * Inbox records, at 8-byte aligned offsets `tail & (INBOX_BYTES - 1)`; never split at the end.
 * Words: [kind | flags | length bits 32-47 << UCX_REC_LENGTH_HIGH_SHIFT, header bytes, payload
 * bytes (bits 0-31), descriptor id], then the header padded to
 * 8 bytes, then (REC_MSG) the payload padded to 8 bytes. A record's size is
 * 16 + pad8(header) + (REC_MSG ? pad8(payload) : 0); REC_WRAP means "continue at offset 0".
 */
export const UCX_REC_MSG = 1;
export const UCX_REC_DESC = 2;
export const UCX_REC_WRAP = 3;
export const UCX_REC_KIND_MASK = 0xff;
export const UCX_RECORD_HEADER_BYTES = 16;
export const UCX_REC_LENGTH_HIGH_SHIFT = 16; // a rendezvous message may pass 4 GiB: its length's bits 32-47
/** REC_DESC flags: how the data waits (rendezvous at the sender, eager in UCX, eager in a native copy). */
export const UCX_DESC_RNDV = 1 << 8;
export const UCX_DESC_DATA = 1 << 9;
export const UCX_DESC_COPY = 1 << 10;

/**
 * Completion entries, UCX_CQ_ENTRY_WORDS words each at `(tail & (CQ_SLOTS - 1)) * 4`:
 * [token, status (0 or a negative ucs_status_t), kind (UCX_CQ_*), value]. value is the bytes
 * received for CQ_RECV. CQ_EP_FAILED reports a failed endpoint: its userId stands in the token
 * slot and the failure in status (UCS_ERR_CONNECTION_RESET, UCS_ERR_ENDPOINT_TIMEOUT, ...).
 */
export const UCX_CQ_ENTRY_WORDS = 4;
export const UCX_CQ_SEND = 1;
export const UCX_CQ_RECV = 2;
export const UCX_CQ_PUT = 3;
export const UCX_CQ_GET = 4;
export const UCX_CQ_ATOMIC = 5;
export const UCX_CQ_FLUSH = 6;
export const UCX_CQ_CLOSE = 7;
export const UCX_CQ_EP_FAILED = 8;

/** The numbers of the layout as the native side has them (ucxLayout), for a check. */
export interface UcxLayout {
  readonly maxHeader: number;
  readonly ctlInboxHead: number; readonly ctlInboxTail: number; readonly ctlCqHead: number; readonly ctlCqTail: number;
  readonly ctlInboxSpilled: number; readonly ctlCqSpilled: number; readonly ctlEpFailures: number;
  readonly ctlDropped: number; readonly ctlInboxBytes: number; readonly ctlCqSlots: number; readonly controlWords: number;
  readonly recMsg: number; readonly recDesc: number; readonly recWrap: number; readonly recordHeaderBytes: number;
  readonly recLengthHighShift: number; readonly descRndv: number; readonly descData: number; readonly descCopy: number;
  readonly cqEntryWords: number; readonly cqSend: number; readonly cqRecv: number; readonly cqPut: number;
  readonly cqGet: number; readonly cqAtomic: number; readonly cqFlush: number; readonly cqClose: number;
  readonly cqEpFailed: number;
}

export interface UcxContextOptions {
  /** UCX_FEATURE_* bits; default UCX_FEATURE_AM. */
  readonly features?: number;
  /** Shown in UCX's logs; default 'tsmpi'. */
  readonly name?: string;
  /** How many endpoints the process expects (UCX sizes resources by it); default 1. */
  readonly estimatedEndpoints?: number;
}

export interface UcxWorkerOptions {
  /** The inbox's bytes: a power of two in [4096, 2^30]; default 1 MiB. */
  readonly inboxBytes?: number;
  /** Completion queue slots: a power of two in [16, 2^24]; default 4096. */
  readonly completionSlots?: number;
  /** Largest payload copied into the inbox (larger ones arrive as descriptors); default 8192. */
  readonly inlineMax?: number;
  /**
   * Eager payloads of at least this many bytes that UCX lets us keep stay in UCX's memory as
   * descriptors (UCX_DESC_DATA, read in place with ucxAmView) instead of being copied into the
   * inbox; default never.
   */
  readonly heldMin?: number;
}

/** A new worker and the memory it reports through. */
export interface UcxWorkerRings {
  readonly worker: UcxWorker;
  /** UCX_CONTROL_WORDS words: UCX_CTL_*. */
  readonly control: Int32Array;
  /** CQ_SLOTS * UCX_CQ_ENTRY_WORDS words of completion entries. */
  readonly completions: Int32Array;
  /** INBOX_BYTES bytes of records (make an Int32Array over inbox.buffer to read their words). */
  readonly inbox: Uint8Array;
  /** The worker's event fd (ucp_worker_get_efd), -1 without UCX_FEATURE_WAKEUP. */
  readonly eventFd: number;
  /** Most header bytes a message may carry (256, or less if UCX allows less). */
  readonly maxHeader: number;
  /** The payloads up to this many bytes arrive inline. */
  readonly inlineMax: number;
}

/** Result of ucxWait. */
export type UcxWaitResult = 'ok' | 'timed-out' | 'busy';

/** The UCX part of the addon (see the section comment above). */
export interface UcxBinding {
  /** True when the addon was compiled with UCX's headers. */
  readonly ucxBuiltWithUcx: boolean;
  /** The ring layout's numbers as compiled. Works without UCX. */
  ucxLayout(): UcxLayout;
  /** Loads libucp if nobody tried yet, and says whether the binding works. Never throws. */
  ucxProbe(): UcxProbeResult;
  /**
   * Loads libucp from `path` (default: where the build found UCX, else the loader's search for
   * libucp.so.0). Only the first load counts: later calls report its outcome.
   * @returns UCX's version.
   * @throws code 'ENOSYS' when it cannot load, with the package to install.
   */
  ucxLoad(path?: string): string;
  /** The name of a ucs_status_t ('UCS_ERR_CONNECTION_RESET'); 'UCS_ERR_<n>' for unnamed ones. */
  ucxStatusName(status: number): string;

  /** ucp_init with the UCX_* environment. @throws code 'UCS_ERR_...' when UCX refuses (no transport...). */
  ucxContextCreate(options?: UcxContextOptions): UcxContext;
  /** Destroys the context's workers (and their endpoints) and memory maps, then the context. */
  ucxContextDestroy(context: UcxContext): void;
  /** A worker (UCS_THREAD_MODE_SINGLE) with its rings and, with UCX_FEATURE_AM, the handler that fills the inbox. */
  ucxWorkerCreate(context: UcxContext, options?: UcxWorkerOptions): UcxWorkerRings;
  /**
   * Closes the worker's endpoints (force; closes already started get up to 1 s), releases
   * descriptors it holds, stops its doorbell relay, destroys it. Pending operations end without
   * completions.
   */
  ucxWorkerDestroy(worker: UcxWorker): void;
  /** The worker's packed address: the bytes a peer passes to ucxEpCreate. */
  ucxWorkerAddress(worker: UcxWorker): Uint8Array;

  /**
   * An endpoint to the worker whose address bytes these are, with UCP_ERR_HANDLING_MODE_PEER:
   * when the peer dies or becomes unreachable, a UCX_CQ_EP_FAILED completion with `userId`
   * (the peer's rank, say) arrives, ucxEpStatus reports the failure and operations on it fail.
   * Connection happens lazily, on the first operation.
   */
  ucxEpCreate(worker: UcxWorker, address: BufferLike, userId: number): UcxEndpoint;
  /**
   * Closes an endpoint (its remote keys first): after its pending operations (flush), or at once
   * (force: the way to close a failed one). The handle is unusable from now on.
   * @returns 0 closed, 1 a UCX_CQ_CLOSE completion with `token` follows, or -status.
   */
  ucxEpClose(ep: UcxEndpoint, force: boolean, token: number): number;
  /** 0, or the ucs_status_t the endpoint failed with. */
  ucxEpStatus(ep: UcxEndpoint): number;

  /**
   * Sends header[hOff .. hOff+hLen) (copied: the caller may reuse it at once) with
   * payload[pOff .. pOff+pLen) as one active message. UCX picks eager or rendezvous by size
   * unless `flags` force one (UCX_SEND_*).
   * @returns 0 sent (payload reusable), 1 pending (a UCX_CQ_SEND completion with `token`
   *   follows; keep payload unmodified until then), or -status (UCS_ERR_NO_RESOURCE with
   *   UCX_SEND_IMMEDIATE; an endpoint failure).
   * @throws RangeError for a header over maxHeader or bad ranges.
   */
  ucxAmSend(ep: UcxEndpoint, header: BufferLike, hOff: number, hLen: number,
            payload: BufferLike, pOff: number, pLen: number, flags: number, token: number): number;
  /**
   * Receives the message held by descriptor `descId` (an inbox REC_DESC record) into
   * dest[off .. off+len), where len must be the message's length; a rendezvous message moves
   * zero-copy from the sender's buffer. The descriptor is used up.
   * @returns 0 received, 1 pending (a UCX_CQ_RECV completion with `token` follows), or -status.
   */
  ucxAmRecv(worker: UcxWorker, descId: number, dest: BufferLike, off: number, len: number, token: number): number;
  /**
   * ucxAmSend with the payload as user-memory pieces: iov[0 .. 2*count) holds (address, length)
   * pairs (a derived datatype's, PackedData.iovecs), which UCX gathers itself (a rendezvous
   * moves them zero-copy). `keep`, the memory's buffer, stays referenced until the completion.
   */
  ucxAmSendIov(ep: UcxEndpoint, header: BufferLike, hOff: number, hLen: number, iov: Float64Array, count: number,
               keep: object, flags: number, token: number): number;
  /**
   * ucxAmRecv into user-memory pieces (count (address, length) pairs in iov), which must add up
   * to the message's length; UCX scatters it itself (a rendezvous lands zero-copy).
   */
  ucxAmRecvIov(worker: UcxWorker, descId: number, iov: Float64Array, count: number, keep: object, token: number): number;
  /** Drops the message held by a descriptor (a rendezvous sender's send then completes). */
  ucxAmDiscard(worker: UcxWorker, descId: number, view?: Uint8Array): void;
  /**
   * Eager data UCX holds for descriptor `descId` (a REC_DESC record with UCX_DESC_DATA), read in
   * place: a view over UCX's memory, valid until ucxAmDiscard(worker, descId, view), which gives
   * the memory back and detaches the view. Worker option heldMin decides which messages stay.
   */
  ucxAmView(worker: UcxWorker, descId: number): Uint8Array;
  /**
   * ucp_worker_progress once, after moving records and completions that waited natively into the
   * rings. Arrivals and completions land in the rings.
   * @returns how many events were handled (0: nothing happened).
   */
  ucxProgress(worker: UcxWorker): number;

  /** Registers a buffer for remote access; the buffer stays alive while mapped. */
  ucxMemMap(context: UcxContext, buffer: BufferLike): UcxMem;
  /** The address of the mapped buffer's first byte, which peers name in ucxPut/ucxGet/ucxAtomic. */
  ucxMemAddress(mem: UcxMem): number;
  ucxMemUnmap(mem: UcxMem): void;
  /** The remote key of a map, as bytes for peers (ucxRkeyUnpack). */
  ucxRkeyPack(mem: UcxMem): Uint8Array;
  /** A peer's remote key, usable on this endpoint only; destroyed with the endpoint at the latest. */
  ucxRkeyUnpack(ep: UcxEndpoint, bytes: BufferLike): UcxRkey;
  ucxRkeyDestroy(rkey: UcxRkey): void;
  /**
   * Writes src[off .. off+len) to remoteAddr. 0 or the completion: the source may be reused;
   * the data is at the target after a flush (ucxEpFlush / ucxWorkerFlush) completes.
   * @returns 0 | 1 (UCX_CQ_PUT with token follows) | -status.
   */
  ucxPut(ep: UcxEndpoint, src: BufferLike, off: number, len: number, remoteAddr: number, rkey: UcxRkey, token: number): number;
  /** Reads remoteAddr into dest[off .. off+len). @returns 0 | 1 (UCX_CQ_GET follows) | -status. */
  ucxGet(ep: UcxEndpoint, dest: BufferLike, off: number, len: number, remoteAddr: number, rkey: UcxRkey, token: number): number;
  /**
   * An atomic operation on the `size`-byte (4 or 8) word at remoteAddr (aligned), with the
   * operand at operands[opOff] (for UCX_AMO_CSWAP: the compare value, then the new value).
   * With `result`, the word's old value is written to result[resOff] on completion (required for
   * SWAP and CSWAP). Operands and result are little-endian, naturally aligned. The operand is
   * copied within the call (operands may be reused at once); result must stay until completion.
   * @returns 0 | 1 (UCX_CQ_ATOMIC follows) | -status.
   */
  ucxAtomic(ep: UcxEndpoint, op: number, size: 4 | 8, operands: BufferLike, opOff: number,
            result: BufferLike | null, resOff: number, remoteAddr: number, rkey: UcxRkey, token: number): number;
  /** Completes every operation started on the endpoint, at the target too. @returns 0 | 1 (UCX_CQ_FLUSH) | -status. */
  ucxEpFlush(ep: UcxEndpoint, token: number): number;
  /** As ucxEpFlush for all of the worker's endpoints. */
  ucxWorkerFlush(worker: UcxWorker, token: number): number;
  /** Orders one-sided operations issued before against those issued after (ucp_worker_fence). */
  ucxFence(worker: UcxWorker): void;

  /** ucp_worker_arm: true when the event fd will fire on the next event, false when events are pending (progress first). */
  ucxArm(worker: UcxWorker): boolean;
  /**
   * Sleeps in poll() on the worker's event fd: 'busy' at once when events are pending (progress
   * and drain the rings, then wait again), 'ok' when it fired, 'timed-out'.
   * @param timeoutMs negative, Infinity or NaN: no timeout.
   */
  ucxWait(worker: UcxWorker, timeoutMs: number): UcxWaitResult;
  /**
   * Starts the worker's doorbell relay: a native thread that, after each ucxBellArm, waits for
   * the worker's event fd and then bumps cells[index] and FUTEX_WAKEs it (the rank's doorbell,
   * src/common/doorbell.ts), so a rank asleep on its doorbell wakes for UCX as for shared-memory
   * peers. The array is kept alive while attached.
   * @throws code 'EBUSY' if one is attached, 'EINVAL' without UCX_FEATURE_WAKEUP.
   */
  ucxBellAttach(worker: UcxWorker, cells: Int32Array, index: number): void;
  /**
   * Before the rank sleeps (after it read the doorbell): arms the worker and has the relay
   * watch its fd once. When events are already pending it rings the doorbell instead (so the
   * sleep returns at once) and returns false.
   */
  ucxBellArm(worker: UcxWorker): boolean;
  /** The rank woke: the relay stops watching (no system call). */
  ucxBellDisarm(worker: UcxWorker): void;
  /** Stops the relay thread. @returns how many times it rang. */
  ucxBellDetach(worker: UcxWorker): number;
  /**
   * Serving (on): the relay thread also progresses the worker while the rank stays out of the
   * binding (it computes), so one-sided operations UCX does in software at this target (tcp)
   * need nothing from the rank. The binding's calls hold a lock the relay takes while it
   * progresses (the worker is UCS_THREAD_MODE_SERIALIZED).
   */
  ucxBellServe(worker: UcxWorker, on: boolean): void;
  /** How many times the relay progressed the worker on the rank's behalf. */
  ucxBellServed(worker: UcxWorker): number;
  /**
   * Starts the peer watch (native/src/ucx_watch.cc), run by the relay thread whether the rank
   * computes, sleeps or progresses: every periodMs a heartbeat to `beatTo` (null: none), and
   * when no heartbeat came from world rank `watched` (-1: none) for timeoutMs, an endpoint
   * failure of `watched` with UCS_ERR_ENDPOINT_TIMEOUT in the completion queue and a ring of
   * the rank's doorbell. Needs ucxBellAttach first; timeoutMs must exceed periodMs.
   */
  ucxWatchStart(worker: UcxWorker, beatTo: UcxEndpoint | null, self: number, watched: number,
                periodMs: number, timeoutMs: number): void;
  /** Stops the peer watch; with sayBye, a last beat tells the observer to stop watching us. @returns beats heard. */
  ucxWatchStop(worker: UcxWorker, sayBye: boolean): number;
}

let ucxProbed: UcxProbeResult | undefined;

/**
 * The UCX binding's state here: loads libucp on the first call (a few milliseconds), then
 * answers from memory. Not a constant computed at import, so that a process that never asks
 * (a single-host job) never loads UCX.
 */
export function ucxProbe(): UcxProbeResult {
  return (ucxProbed ??= addon.ucxProbe());
}

/** Whether the UCX binding works here (see ucxProbe; `ucxProbe().reason` says why not). */
export function ucxAvailable(): boolean {
  return ucxProbe().available;
}
