import { addon } from './addon.js';

/**
 * The addon's SISCI bridge (native/src/sisci.cc): a SISCI library loaded with dlopen, tsmpi's
 * emulation by default or Dolphin's libsisci. Handles are opaque; src/sisci/ wraps them.
 * Failures throw Error{code: 'SCI_ERR_...', sciError}.
 */
export type Handle = { readonly __sciHandle: unique symbol };

export interface SisciAddon {
  /** Loads the library (default: sisci_emu.so beside the addon) and calls SCIInitialize; returns its path. */
  sciLoad(path?: string): string;
  sciOpen(): Handle;
  sciClose(desc: Handle): void;
  sciNodeId(): number;
  sciProbeNode(desc: Handle, nodeId: number): boolean;
  /** SCICreateSegment + SCIPrepareSegment. */
  sciCreateSegment(desc: Handle, segmentId: number, size: number): Handle;
  sciSetAvailable(segment: Handle, available: boolean): void;
  sciRemoveSegment(segment: Handle): void;
  sciConnectSegment(desc: Handle, nodeId: number, segmentId: number, timeoutMs: number): { handle: Handle; size: number };
  sciDisconnectSegment(segment: Handle): void;
  /** Maps [offset, offset + size) of a local or remote segment as a SharedArrayBuffer (no copy). */
  sciMap(segment: Handle, remote: boolean, offset: number, size: number): { handle: Handle; memory: SharedArrayBuffer };
  sciUnmap(map: Handle): void;
  sciCreateSequence(map: Handle): Handle;
  sciRemoveSequence(sequence: Handle): void;
  /** 0 SCI_SEQ_OK, 1 RETRIABLE, 2 NOT_RETRIABLE, 3 PENDING. */
  sciStartSequence(sequence: Handle): number;
  sciCheckSequence(sequence: Handle): number;
  sciStoreBarrier(sequence: Handle): void;
  /** SCIMemCpy of src[srcOffset, srcOffset + length) to remoteOffset of the map. */
  sciMemCpy(sequence: Handle, map: Handle, remoteOffset: number, src: Uint8Array, srcOffset: number, length: number): void;
  /** start + SCIMemCpy + check, again while RETRIABLE (at most maxRetries); returns the rewrites needed. */
  sciWriteChecked(sequence: Handle, map: Handle, remoteOffset: number, src: Uint8Array, srcOffset: number, length: number,
                  maxRetries: number): number;
  /** number < 0: any free number. */
  sciCreateInterrupt(desc: Handle, number: number): { handle: Handle; number: number };
  sciRemoveInterrupt(interrupt: Handle): void;
  /** True when triggered (triggers since the last wait coalesce), false on timeout. */
  sciWaitForInterrupt(interrupt: Handle, timeoutMs: number): boolean;
  sciConnectInterrupt(desc: Handle, nodeId: number, number: number, timeoutMs: number): Handle;
  sciDisconnectInterrupt(interrupt: Handle): void;
  sciTriggerInterrupt(interrupt: Handle): void;
  /**
   * Starts a native thread that waits on `interrupt` and, for every trigger, adds 1 to
   * cells[index] and futex-wakes it (a rank sleeping on that cell wakes on a remote trigger).
   */
  sciStartRelay(interrupt: Handle, cells: Int32Array, index: number): Handle;
  /** Stops the relay thread (within ~100 ms); returns how many triggers it relayed. */
  sciStopRelay(relay: Handle): number;
  /** SCICreateDMAQueue on adapter 0. */
  sciCreateDMAQueue(desc: Handle, maxEntries: number): Handle;
  sciRemoveDMAQueue(queue: Handle): void;
  /** SCIEnqueueDMATransfer local → remote (read: remote → local); returns the queue state. */
  sciEnqueueDMA(queue: Handle, local: Handle, remote: Handle, localOffset: number, remoteOffset: number, size: number,
                read: boolean): number;
  /** Starts the gathered transfers; with `cells`, completion adds 1 to cells[index] and futex-wakes it. */
  sciPostDMAQueue(queue: Handle, cells?: Int32Array, index?: number): void;
  sciResetDMAQueue(queue: Handle): void;
  /** 0 IDLE, 1 GATHER, 2 POSTED, 3 DONE, 4 ABORTED, 5 ERROR. */
  sciDMAQueueState(queue: Handle): number;
  sciWaitForDMAQueue(queue: Handle, timeoutMs: number): number;
  sciFaultCounters(): { sequenceErrors: number; corruptedBytes: number; lateStores: number };
}

export const sisciAddon = addon as unknown as SisciAddon;
