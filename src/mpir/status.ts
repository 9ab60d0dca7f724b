import { Datatype, Datatypes } from './datatype.js';
import { UNDEFINED } from './constants.js';
import { ErrorClass } from './error-classes.js';
import { check, describe, intProblem, show } from './validate.js';

/** A datatype argument of a Status method: a live MPI.Datatype (MPI.ERR_TYPE otherwise). */
function checkType(call: string, datatype: unknown): void {
  if (datatype instanceof Datatype && !datatype.isFreed && datatype !== Datatypes.DATATYPE_NULL) return;
  check(datatype instanceof Datatype ? 'datatype has been freed' : `datatype must be an MPI.Datatype, got ${describe(datatype)}`,
    `Status.${call}`, ErrorClass.ERR_TYPE);
}

const INT_MIN = -0x80000000;
const INT_MAX = 0x7fffffff;

/**
 * The status of a completed receive (or probe): source, tag, error, and the byte count from
 * which Get_count derives element counts. Fields are plain and writable, so one Status can be
 * passed to many calls without allocation.
 */
export class Status {
  source = -1;
  tag = -1;
  error = 0;
  /** Bytes received. */
  count = 0;
  cancelled = false;

  Get_source(): number { return this.source; }
  Get_tag(): number { return this.tag; }
  Get_error(): number { return this.error; }
  Is_cancelled(): boolean { return this.cancelled; }

  /** Elements of `datatype` received; MPI.UNDEFINED when the bytes are not a whole number of them. */
  Get_count(datatype: Datatype = Datatypes.BYTE): number {
    checkType('Get_count', datatype);
    if (datatype.size === 0) return this.count === 0 ? 0 : UNDEFINED;
    return this.count % datatype.size === 0 ? this.count / datatype.size : UNDEFINED;
  }

  /** Basic elements received (derived and pair types count their parts); MPI.UNDEFINED when one is cut. */
  Get_elements(datatype: Datatype = Datatypes.BYTE): number {
    checkType('Get_elements', datatype);
    if (datatype.predefined && datatype.kind !== 'pair') return this.Get_count(datatype);
    return datatype.elementsIn(this.count) ?? UNDEFINED;
  }

  Set_source(v: number): void {
    check(intProblem(v, 'source', INT_MIN, INT_MAX, 'an integer'), 'Status.Set_source');
    this.source = v;
  }
  Set_tag(v: number): void {
    check(intProblem(v, 'tag', INT_MIN, INT_MAX, 'an integer'), 'Status.Set_tag');
    this.tag = v;
  }
  Set_error(v: number): void {
    check(intProblem(v, 'error', INT_MIN, INT_MAX, 'an integer'), 'Status.Set_error');
    this.error = v;
  }
  Set_cancelled(v: boolean): void { this.cancelled = v; }
  Set_elements(datatype: Datatype, count: number): void {
    checkType('Set_elements', datatype);
    // Counts are JavaScript numbers up to 2^53 (MPI-4's large counts are the normal calls).
    if (!(Number.isSafeInteger(count) && count >= 0)) {
      check(`count ${show(count)} is invalid (expected an integer in 0..Number.MAX_SAFE_INTEGER)`, 'Status.Set_elements', ErrorClass.ERR_COUNT);
    }
    this.count = datatype.elements <= 1 ? count * datatype.size : Math.floor(count / datatype.elements) * datatype.size;
  }
}

/** A status argument: an MPI.Status, or undefined/null for none (MPI_STATUS_IGNORE). */
export function statusProblem(status: unknown, name = 'status'): string | null {
  if (status === undefined || status === null || status instanceof Status) return null;
  return `${name} must be an MPI.Status or undefined, got ${describe(status)}`;
}

/** A list of statuses for the completion calls: an array of MPI.Status (entries may be undefined), or none. */
export function statusesProblem(statuses: unknown, name = 'statuses'): string | null {
  if (statuses === undefined || statuses === null) return null;
  if (!Array.isArray(statuses)) return `${name} must be an array of MPI.Status, got ${describe(statuses)}`;
  for (let i = 0; i < statuses.length; i++) {
    const s: unknown = statuses[i];
    if (s !== undefined && s !== null && !(s instanceof Status)) return `${name}[${i}] must be an MPI.Status, got ${describe(s)}`;
  }
  return null;
}
