import type { Datatype } from './datatype.js';
import { Datatypes } from './datatype.js';
import { UNDEFINED } from './constants.js';

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
    if (datatype.size === 0) return this.count === 0 ? 0 : UNDEFINED;
    return this.count % datatype.size === 0 ? this.count / datatype.size : UNDEFINED;
  }

  /** Basic elements received (derived and pair types count their parts); MPI.UNDEFINED when one is cut. */
  Get_elements(datatype: Datatype = Datatypes.BYTE): number {
    if (datatype.predefined && datatype.kind !== 'pair') return this.Get_count(datatype);
    return datatype.elementsIn(this.count) ?? UNDEFINED;
  }

  Set_source(v: number): void { this.source = v; }
  Set_tag(v: number): void { this.tag = v; }
  Set_error(v: number): void { this.error = v; }
  Set_cancelled(v: boolean): void { this.cancelled = v; }
  Set_elements(datatype: Datatype, count: number): void {
    this.count = datatype.elements <= 1 ? count * datatype.size : Math.floor(count / datatype.elements) * datatype.size;
  }
}
