/**
 * Small RMA helpers shared by the spin family: one-element atomics and writes on a lock
 * window (disp_unit 1, inside the lock's Lock_all epoch), each completed with Flush(target)
 * before it returns, with origin/result buffers and target tuples made once (hot paths
 * allocate nothing of their own per acquire).
 */
import { MPI, type Datatype, type Win } from '../../index.js';

type Target = [number, number, Datatype];

export class Rma {
  private readonly i32 = new Int32Array(1);
  private readonly i32c = new Int32Array(1);
  private readonly i32r = new Int32Array(1);
  private readonly u8 = new Uint8Array(1);
  private readonly u8c = new Uint8Array(1);
  private readonly u8r = new Uint8Array(1);
  private readonly u16 = new Uint16Array(1);
  private readonly u16c = new Uint16Array(1);
  private readonly u16r = new Uint16Array(1);
  /** Target tuples by displacement, one per element type. */
  private readonly t8 = new Map<number, Target>();
  private readonly t32 = new Map<number, Target>();

  constructor(readonly win: Win) {}

  private target8(disp: number): Target {
    let t = this.t8.get(disp);
    if (t === undefined) this.t8.set(disp, (t = [disp, 1, MPI.UINT8_T]));
    return t;
  }

  private target32(disp: number): Target {
    let t = this.t32.get(disp);
    if (t === undefined) this.t32.set(disp, (t = [disp, 1, MPI.INT32_T]));
    return t;
  }

  /** Fetch_and_op on an int32 (op REPLACE, SUM or NO_OP), flushed: the old value. */
  fop32(value: number, rank: number, disp: number, op: unknown): number {
    this.i32[0] = value;
    this.win.Fetch_and_op(this.i32, this.i32r, rank, disp, op as never);
    this.win.Flush(rank);
    return this.i32r[0]!;
  }

  /** An atomic int32 read (Fetch_and_op NO_OP), flushed. */
  read32(rank: number, disp: number): number {
    return this.fop32(0, rank, disp, MPI.NO_OP);
  }

  /** Compare_and_swap on an int32, flushed: the old value (the swap happened iff it equals `compare`). */
  cas32(value: number, compare: number, rank: number, disp: number): number {
    this.i32[0] = value;
    this.i32c[0] = compare;
    this.win.Compare_and_swap(this.i32, this.i32c, this.i32r, rank, disp);
    this.win.Flush(rank);
    return this.i32r[0]!;
  }

  cas8(value: number, compare: number, rank: number, disp: number): number {
    this.u8[0] = value;
    this.u8c[0] = compare;
    this.win.Compare_and_swap(this.u8, this.u8c, this.u8r, rank, disp);
    this.win.Flush(rank);
    return this.u8r[0]!;
  }

  cas16(value: number, compare: number, rank: number, disp: number): number {
    this.u16[0] = value;
    this.u16c[0] = compare;
    this.win.Compare_and_swap(this.u16, this.u16c, this.u16r, rank, disp);
    this.win.Flush(rank);
    return this.u16r[0]!;
  }

  /** An atomic uint8 read (Fetch_and_op NO_OP), flushed. */
  read8(rank: number, disp: number): number {
    this.u8[0] = 0;
    this.win.Fetch_and_op(this.u8, this.u8r, rank, disp, MPI.NO_OP);
    this.win.Flush(rank);
    return this.u8r[0]!;
  }

  /** An atomic uint16 read (Fetch_and_op NO_OP), flushed. */
  read16(rank: number, disp: number): number {
    this.u16[0] = 0;
    this.win.Fetch_and_op(this.u16, this.u16r, rank, disp, MPI.NO_OP);
    this.win.Flush(rank);
    return this.u16r[0]!;
  }

  /** An atomic uint8 store (Accumulate REPLACE), flushed: for bytes others CAS. */
  store8(value: number, rank: number, disp: number): void {
    this.u8[0] = value;
    this.win.Accumulate(this.u8, rank, this.target8(disp), MPI.REPLACE);
    this.win.Flush(rank);
  }

  /** An atomic int32 store (Accumulate REPLACE), flushed. */
  store32(value: number, rank: number, disp: number): void {
    this.i32[0] = value;
    this.win.Accumulate(this.i32, rank, this.target32(disp), MPI.REPLACE);
    this.win.Flush(rank);
  }

  /** An atomic int32 add (Accumulate SUM), flushed. */
  add32(value: number, rank: number, disp: number): void {
    this.i32[0] = value;
    this.win.Accumulate(this.i32, rank, this.target32(disp), MPI.SUM);
    this.win.Flush(rank);
  }

  /** A plain one-byte Put, flushed (the thesis' hand-over write, §3.4). */
  put8(value: number, rank: number, disp: number): void {
    this.u8[0] = value;
    this.win.Put(this.u8, rank, this.target8(disp));
    this.win.Flush(rank);
  }

  /** A plain one-byte Get, flushed. */
  get8(rank: number, disp: number): number {
    this.win.Get(this.u8r, rank, this.target8(disp));
    this.win.Flush(rank);
    return this.u8r[0]!;
  }
}
