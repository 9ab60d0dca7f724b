import { BufferSpec, decodeBuffer, describe, type NonContiguous } from '../buffer.js';
import { Datatype, Datatypes } from '../datatype.js';
import { ErrorClass } from '../error-classes.js';
import { Op } from '../op.js';
import { opCode } from './element-codes.js';
import { show } from '../validate.js';

/** The arguments of the scratch slots, as the calls name them. */
const SLOT_NAMES = ['origin', 'result', 'compare'] as const;

/** Raises an MPI error of `errorClass` for `call` through the window's errhandler (Win.fail). */
export type WinFail = (call: string, errorClass: number, message: string) => never;

/**
 * The arguments of a window's one-sided operations, decoded and checked for the API face
 * (win.ts): origin, result and compare buffers into three reused specs, the target triple into
 * three fields (no tuple per operation), ops into their codes, and the errors of each, with
 * the MPI error class a user can act on. Cold paths only raise; the decoding is on the hot path
 * and allocates nothing.
 */
export class OperationArgs {
  private readonly specs = [new BufferSpec(), new BufferSpec(), new BufferSpec()];
  /** The target triple decoded by target(): displacement, count, datatype. */
  disp = 0;
  count = 0;
  datatype: Datatype = Datatypes.BYTE;

  constructor(private readonly sizes: Float64Array, private readonly units: Float64Array, private readonly fail: WinFail) {}

  /**
   * Decodes into scratch spec `slot` (0 origin, 1 result, 2 compare; `name` is the argument's name
   * when it differs: Get's origin receives into the result slot): valid until the next call
   * with that slot. A non-contiguous origin is packed into a temporary buffer (data sent) or
   * gets one to receive into (results, unpacked when they arrive).
   */
  decode(call: string, arg: unknown, slot: number, name: string = SLOT_NAMES[slot]!): BufferSpec {
    const spec = this.specs[slot]!;
    const mode: NonContiguous = slot === 1 ? 'unpack' : 'pack';
    if (!decodeBuffer(arg, spec, mode)) this.fail(call, spec.errorClass, `${name}: ${spec.error}`);
    return spec;
  }

  /** Decodes the target triple into targetDisp, targetCount and targetType. */
  target(call: string, target: unknown, ref: { count: number; datatype: Datatype }, fixedCount: number | null): void {
    let disp = 0;
    let count = fixedCount ?? ref.count;
    let dt = ref.datatype;
    if (Array.isArray(target)) {
      // [disp, count, datatype]; a missing entry takes its default, a null one is an error.
      disp = target.length > 0 ? target[0] : 0;
      if (target.length > 1) count = target[1] as number;
      if (target.length > 2) dt = target[2] as Datatype;
    } else if (typeof target === 'number') disp = target;
    else if (target !== undefined && target !== null) this.fail(call, ErrorClass.ERR_ARG, 'target must be [disp, count, datatype] or a displacement');
    if (!Number.isInteger(disp) || !Number.isInteger(count) || count < 0 || !(dt instanceof Datatype) ||
        dt === Datatypes.DATATYPE_NULL || !dt.isCommitted) this.badTarget(call, disp, count, dt);
    this.disp = disp;
    this.count = count;
    this.datatype = dt;
  }

  private badTarget(call: string, disp: number, count: number, dt: unknown): never {
    if (!Number.isInteger(disp)) this.fail(call, ErrorClass.ERR_DISP, `target displacement ${show(disp)} is not an integer`);
    if (!Number.isInteger(count) || count < 0) this.fail(call, ErrorClass.ERR_COUNT, `target count ${show(count)} is not a count`);
    if (!(dt instanceof Datatype) || dt === Datatypes.DATATYPE_NULL) this.fail(call, ErrorClass.ERR_TYPE, 'the target datatype is not a datatype');
    return this.fail(call, ErrorClass.ERR_TYPE, `target datatype ${dt.name} is not committed (or was freed)`);
  }

  /** The code of a predefined op that can reduce `dt`; MPI.ERR_OP otherwise. */
  opCode(call: string, op: Op, dt: Datatype): number {
    const code = op instanceof Op ? opCode(op) : undefined;
    if (code === undefined) {
      this.fail(call, ErrorClass.ERR_OP, op instanceof Op ? `op ${op.name}: one-sided accumulates take predefined ops only`
        : `op must be an MPI.Op, got ${describe(op)}`);
    }
    const bad = op.checkType(dt);
    if (bad !== null) this.fail(call, ErrorClass.ERR_OP, bad);
    return code;
  }

  badRank(call: string, targetRank: number): never {
    return this.fail(call, ErrorClass.ERR_RANK, `target rank ${show(targetRank)} is out of range for a window of ${this.sizes.length} ranks`);
  }

  mixedType(call: string, tdt: Datatype): never {
    return this.fail(call, ErrorClass.ERR_TYPE, `target datatype ${tdt.name} mixes basic types; one-sided operations here ` +
      'take a predefined type or one derived from a single basic type');
  }

  shortBuffer(call: string, which: string, buffer: Uint8Array, bytes: number): never {
    return this.fail(call, ErrorClass.ERR_COUNT, `the ${which} buffer holds ${buffer.length} bytes, the target range ${bytes}`);
  }

  outOfRange(call: string, t: number, lo: number, hi: number): never {
    return this.fail(call, ErrorClass.ERR_RMA_RANGE, `target range [${lo}, ${hi}) bytes is outside rank ${t}'s ` +
      `window of ${this.sizes[t]} bytes (target disp ${this.disp} x disp_unit ${this.units[t]})`);
  }
}
