import { BufferSpec, decodeBuffer } from './buffer.js';
import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';
import type { Op } from './op.js';

/**
 * MPI.Reduce_local and op.Reduce_local: inoutbuf[i] = inbuf[i] op inoutbuf[i], on this process
 * only, with the kernels the reductions use. Both buffers take any form of API.md and must have
 * the same datatype and count; a non-contiguous derived type is refused as Reduce refuses it.
 */
export function reduceLocal(call: string, inbuf: unknown, inoutbuf: unknown, op: Op): void {
  const input = new BufferSpec();
  const inout = new BufferSpec();
  if (!decodeBuffer(inbuf, input, 'refuse')) throw new MPIException(input.errorClass, `${call}: inbuf: ${input.error}`);
  if (!decodeBuffer(inoutbuf, inout, 'refuse')) throw new MPIException(inout.errorClass, `${call}: inoutbuf: ${inout.error}`);
  if (input.datatype !== inout.datatype) {
    throw new MPIException(ErrorClass.ERR_TYPE, `${call}: inbuf is ${input.datatype.name} but inoutbuf is ${inout.datatype.name} (they must match)`);
  }
  if (input.count !== inout.count) {
    throw new MPIException(ErrorClass.ERR_COUNT, `${call}: inbuf has ${input.count} elements but inoutbuf has ${inout.count} (they must match)`);
  }
  const why = op.checkType(inout.datatype);
  if (why !== null) throw new MPIException(ErrorClass.ERR_OP, `${call}: op: ${why}`);
  op.apply(input.bytes, inout.bytes, inout.count, inout.datatype);
}
