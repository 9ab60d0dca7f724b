import { type Handle, sisciAddon as sci } from '../native/sisci.js';

/**
 * A typed view of the SISCI API for the ch_sci device: a descriptor, local and remote
 * segments, maps (their memory as a SharedArrayBuffer: stores into a remote map are SCI remote
 * writes, loads are remote reads), sequences for checked transfers, interrupts. Every failure
 * is a SisciError carrying the SCI error name (`code`), e.g.
 * `SCIConnectSegment(node 8, segment 3): SCI_ERR_NO_SUCH_SEGMENT`.
 *
 * The library is the SISCI emulation built beside the addon, or Dolphin's libsisci when
 * TSMPI_SISCI_LIB names it (a real cluster).
 */
export class SisciError extends Error {
  constructor(message: string, readonly code: string, readonly sciError: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SisciError';
  }
}

function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw asSisciError(e);
  }
}

/** The addon's coded error as a SisciError (other errors unchanged). */
function asSisciError(e: unknown): unknown {
  const err = e as Error & { code?: string; sciError?: number };
  if (typeof err.code === 'string' && err.code.startsWith('SCI_ERR_')) {
    return new SisciError(err.message, err.code, err.sciError ?? -1, { cause: e });
  }
  return e;
}

/** Sequence status of SCIStartSequence / SCICheckSequence. */
export const SEQ_OK = 0;
export const SEQ_RETRIABLE = 1;
export const SEQ_NOT_RETRIABLE = 2;

let loadedFrom: string | null = null;

/** Loads SISCI once: TSMPI_SISCI_LIB, or the emulation. Returns the library's path. */
export function loadSisci(path: string | undefined = process.env.TSMPI_SISCI_LIB || undefined): string {
  if (loadedFrom === null) loadedFrom = call(() => sci.sciLoad(path));
  return loadedFrom;
}

/** Injected-fault counters of the emulation (zeros with Dolphin's library). */
export function faultCounters(): { sequenceErrors: number; corruptedBytes: number; lateStores: number } {
  return sci.sciFaultCounters();
}

export class Descriptor {
  private constructor(private readonly h: Handle) {}

  static open(): Descriptor {
    loadSisci();
    return new Descriptor(call(() => sci.sciOpen()));
  }

  /** This process's SCI node id (a multiple of 4). */
  nodeId(): number {
    return call(() => sci.sciNodeId());
  }

  /** Whether a process of `nodeId` has SISCI open. */
  probe(nodeId: number): boolean {
    return call(() => sci.sciProbeNode(this.h, nodeId));
  }

  /** A prepared local segment; others can connect once it is made available. */
  createSegment(segmentId: number, size: number): LocalSegment {
    return new LocalSegment(call(() => sci.sciCreateSegment(this.h, segmentId, size)), segmentId, size);
  }

  /** Connects to segment `segmentId` of node `nodeId`, waiting up to `timeoutMs` for it to become available. */
  connect(nodeId: number, segmentId: number, timeoutMs: number): RemoteSegment {
    const r = call(() => sci.sciConnectSegment(this.h, nodeId, segmentId, timeoutMs));
    return new RemoteSegment(r.handle, nodeId, segmentId, r.size);
  }

  /** A local interrupt with a fixed number, or any free number when omitted. */
  createInterrupt(number = -1): LocalInterrupt {
    const r = call(() => sci.sciCreateInterrupt(this.h, number));
    return new LocalInterrupt(r.handle, r.number);
  }

  connectInterrupt(nodeId: number, number: number, timeoutMs: number): RemoteInterrupt {
    return new RemoteInterrupt(call(() => sci.sciConnectInterrupt(this.h, nodeId, number, timeoutMs)));
  }

  /** A DMA queue of up to `maxEntries` transfers (SCI_ERR_MAX_ENTRIES beyond). */
  createDmaQueue(maxEntries: number): DmaQueue {
    return new DmaQueue(call(() => sci.sciCreateDMAQueue(this.h, maxEntries)));
  }

  close(): void {
    call(() => sci.sciClose(this.h));
  }
}

/** States of a DMA queue (sci_dma_queue_state_t). */
export const DMA_IDLE = 0;
export const DMA_GATHER = 1;
export const DMA_POSTED = 2;
export const DMA_DONE = 3;
export const DMA_ABORTED = 4;
export const DMA_ERROR = 5;

/**
 * A DMA queue: transfers between a local segment and a connected (not necessarily mapped)
 * remote segment, gathered with enqueue(), started with post(), carried out while the CPU goes
 * on; state() says when they are DONE, or ERROR (a transfer failed: reset() and post again).
 * Offsets and sizes must be multiples of the adapter's DMA alignment (8 bytes in the emulation).
 */
export class DmaQueue {
  constructor(private readonly h: Handle) {}

  enqueue(local: LocalSegment, localOffset: number, remote: RemoteSegment, remoteOffset: number, size: number,
          read = false): void {
    call(() => sci.sciEnqueueDMA(this.h, local.handle, remote.handle, localOffset, remoteOffset, size, read));
  }

  /**
   * Starts the gathered transfers. With `wake`, completion adds 1 to wake.cells[wake.index] and
   * futex-wakes it (the SISCI completion callback, run on the library's thread): how a rank
   * asleep on its doorbell learns that its DMA is done.
   */
  post(wake?: { cells: Int32Array; index: number }): void {
    call(() => (wake ? sci.sciPostDMAQueue(this.h, wake.cells, wake.index) : sci.sciPostDMAQueue(this.h)));
  }

  state(): number {
    return sci.sciDMAQueueState(this.h);
  }

  /** Waits up to `timeoutMs` for a posted queue; returns its state. */
  wait(timeoutMs: number): number {
    return call(() => sci.sciWaitForDMAQueue(this.h, timeoutMs));
  }

  /** Empties the queue (after DONE or ERROR) for the next transfers. */
  reset(): void {
    call(() => sci.sciResetDMAQueue(this.h));
  }

  remove(): void {
    call(() => sci.sciRemoveDMAQueue(this.h));
  }
}

export class LocalSegment {
  constructor(readonly handle: Handle, readonly id: number, readonly size: number) {}

  setAvailable(available = true): void {
    call(() => sci.sciSetAvailable(this.handle, available));
  }

  map(offset = 0, size = this.size - offset): SciMap {
    const m = call(() => sci.sciMap(this.handle, false, offset, size));
    return new SciMap(m.handle, m.memory);
  }

  /** SCI_ERR_BUSY while connected or mapped. */
  remove(): void {
    call(() => sci.sciRemoveSegment(this.handle));
  }
}

export class RemoteSegment {
  constructor(readonly handle: Handle, readonly nodeId: number, readonly id: number, readonly size: number) {}

  map(offset = 0, size = this.size - offset): SciMap {
    const m = call(() => sci.sciMap(this.handle, true, offset, size));
    return new SciMap(m.handle, m.memory);
  }

  /** SCI_ERR_BUSY while mapped. */
  disconnect(): void {
    call(() => sci.sciDisconnectSegment(this.handle));
  }
}

/** Mapped memory. The views are valid until unmap(); after it they must not be touched. */
export class SciMap {
  readonly bytes: Uint8Array;
  readonly words: Int32Array;

  constructor(private readonly h: Handle, memory: SharedArrayBuffer) {
    this.bytes = new Uint8Array(memory);
    this.words = new Int32Array(memory, 0, memory.byteLength >> 2);
  }

  /** A sequence for checked transfers into this map. */
  sequence(): Sequence {
    return new Sequence(call(() => sci.sciCreateSequence(this.h)), this.h);
  }

  unmap(): void {
    call(() => sci.sciUnmap(this.h));
  }
}

export class Sequence {
  constructor(private readonly h: Handle, private readonly map: Handle) {}

  start(): number {
    return sci.sciStartSequence(this.h);
  }

  /** SEQ_OK when every transfer since start() arrived intact; SEQ_RETRIABLE: write them again. */
  check(): number {
    return sci.sciCheckSequence(this.h);
  }

  storeBarrier(): void {
    sci.sciStoreBarrier(this.h);
  }

  /** SCIMemCpy: src[srcOffset, srcOffset + length) to `offset` of the map, through this sequence. */
  write(offset: number, src: Uint8Array, srcOffset = 0, length = src.length - srcOffset): void {
    // On every message's path: no closure (call() would allocate one per write).
    try {
      sci.sciMemCpy(this.h, this.map, offset, src, srcOffset, length);
    } catch (e) {
      throw asSisciError(e);
    }
  }

  /**
   * A checked transfer in one call: start, write src[srcOffset, srcOffset + length) to
   * `offset`, check, and write again while the check says RETRIABLE, at most `maxRetries`
   * times (then SisciError SCI_ERR_TRANSFER_FAILED). Returns the rewrites it needed.
   */
  writeChecked(offset: number, src: Uint8Array, srcOffset: number, length: number, maxRetries: number): number {
    try {
      return sci.sciWriteChecked(this.h, this.map, offset, src, srcOffset, length, maxRetries);
    } catch (e) {
      throw asSisciError(e);
    }
  }

  remove(): void {
    call(() => sci.sciRemoveSequence(this.h));
  }
}

export class LocalInterrupt {
  constructor(private readonly h: Handle, readonly number: number) {}

  /** True when triggered since the last wait (triggers coalesce), false after `timeoutMs`. */
  wait(timeoutMs: number): boolean {
    return call(() => sci.sciWaitForInterrupt(this.h, timeoutMs));
  }

  /**
   * Relays triggers to a futex cell from a native thread: each one adds 1 to cells[index]
   * and wakes its sleepers (how a rank asleep on its doorbell hears another SCI node). While a
   * relay runs, wait() must not be used. Returns the relay; stop it before remove().
   */
  relay(cells: Int32Array, index: number): InterruptRelay {
    return new InterruptRelay(call(() => sci.sciStartRelay(this.h, cells, index)));
  }

  remove(): void {
    call(() => sci.sciRemoveInterrupt(this.h));
  }
}

export class InterruptRelay {
  constructor(private readonly h: Handle) {}

  /** Stops the thread (within ~100 ms); returns the triggers it relayed. */
  stop(): number {
    return sci.sciStopRelay(this.h);
  }
}

export class RemoteInterrupt {
  constructor(private readonly h: Handle) {}

  trigger(): void {
    try {
      sci.sciTriggerInterrupt(this.h);
    } catch (e) {
      throw asSisciError(e);
    }
  }

  disconnect(): void {
    call(() => sci.sciDisconnectInterrupt(this.h));
  }
}
