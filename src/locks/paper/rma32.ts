/**
 * Shared helpers of the paper family (research 001, 000 §2.3–2.5): the null rank and a thin
 * wrapper that issues single-int32 RMA operations on a LockWindow through preallocated
 * origin/result buffers (the hot paths allocate nothing), each completed by a Flush of its
 * target, so a value it returns is valid (the paper's rule: "a returned value is valid only
 * after the next Flush").
 *
 * Every method completes its operation before it returns; none of them keeps a reference to a
 * caller's buffer, so no origin buffer can be reused or freed before completion (the thesis'
 * defect 2 of the original D-MCS cannot happen here).
 *
 * Research ids cited here: see docs/references.md.
 */
import { MPI, type Win } from '../../index.js';

/** The null rank ∅ of the listings. */
export const NIL = -1;

export class Rma32 {
  private readonly origin = new Int32Array(1);
  private readonly compare = new Int32Array(1);
  private readonly result = new Int32Array(1);

  constructor(readonly win: Win) {}

  /** Fetch_and_op(value, op) at rank:disp + Flush(rank); the previous value. */
  fao(value: number, rank: number, disp: number, op = MPI.REPLACE): number {
    this.origin[0] = value;
    this.win.Fetch_and_op(this.origin, this.result, rank, disp, op);
    this.win.Flush(rank);
    return this.result[0]!;
  }

  /** Atomic read: Fetch_and_op(NO_OP) + Flush. */
  load(rank: number, disp: number): number {
    this.win.Fetch_and_op(this.origin, this.result, rank, disp, MPI.NO_OP);
    this.win.Flush(rank);
    return this.result[0]!;
  }

  /** Compare_and_swap(value if == expected) + Flush; the previous value. */
  cas(value: number, expected: number, rank: number, disp: number): number {
    this.origin[0] = value;
    this.compare[0] = expected;
    this.win.Compare_and_swap(this.origin, this.compare, this.result, rank, disp);
    this.win.Flush(rank);
    return this.result[0]!;
  }

  /** Plain (non-atomic) Put of one int32 + Flush: the thesis' hand-over / registration write. */
  put(value: number, rank: number, disp: number): void {
    this.origin[0] = value;
    this.win.Put(this.origin, rank, disp);
    this.win.Flush(rank);
  }

  /** Atomic write or add: Accumulate(value, op) + Flush. */
  acc(value: number, rank: number, disp: number, op = MPI.REPLACE): void {
    this.origin[0] = value;
    this.win.Accumulate(this.origin, rank, disp, op);
    this.win.Flush(rank);
  }
}
