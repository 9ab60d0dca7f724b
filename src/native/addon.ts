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
export interface NativeAddon {
  /**
   * Creates a shared segment `/dev/shm/<name>` of `size` bytes, mode 0600 whatever the umask,
   * reserves all its pages and maps them (pre-faulted) into this process.
   *
   * @param name 1 to 200 characters of `[A-Za-z0-9._-]`, not `.` or `..`; the addon adds the '/'.
   * @param size bytes, an integer in [1, 2^40].
   * @returns the mapping; it is unmapped when the buffer is garbage-collected.
   * @throws code 'EEXIST' if the segment exists, 'ENOSPC' if /dev/shm cannot hold it (nothing is
   *   left behind), 'EINVAL' for a bad name or size.
   */
  shmCreate(name: string, size: number): SharedArrayBuffer;

  /**
   * Maps an existing segment whole (its size from the file), pre-faulted.
   *
   * @throws code 'ENOENT' if there is no such segment, 'EINVAL' if it is empty or the name is bad.
   */
  shmOpen(name: string): SharedArrayBuffer;

  /**
   * Removes a segment's name; mappings stay valid until unmapped.
   *
   * @returns true if it was removed, false if it did not exist.
   * @throws any other failure (e.g. 'EACCES').
   */
  shmUnlink(name: string): boolean;

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
   * A connected AF_UNIX stream pair, both ends blocking and close-on-exec (spawn's stdio dup2
   * clears the flag on the copy it gives the child).
   */
  socketpair(): [number, number];

  /**
   * A blocking, close-on-exec, TCP_NODELAY socket connected to `host:port`; the host may be a
   * name or an IPv4/IPv6 literal, and every address it resolves to is tried in turn.
   *
   * @param timeoutMs for the whole connect; negative or Infinity for none.
   * @throws code 'ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND' (unknown host), ... with host:port in
   *   the message.
   */
  connectTcp(host: string, port: number, timeoutMs: number): number;

  /**
   * A blocking, close-on-exec socket connected to the Unix socket at `path`.
   *
   * @param timeoutMs bounds the wait when the listener's backlog is full; negative or Infinity
   *   for none.
   * @throws code 'ENOENT' (no such path), 'ECONNREFUSED' (nobody listening), 'ETIMEDOUT'.
   */
  connectUnix(path: string, timeoutMs: number): number;

  /** Clears (blocking) or sets (non-blocking) O_NONBLOCK on `fd`. */
  setBlocking(fd: number, blocking: boolean): void;

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
