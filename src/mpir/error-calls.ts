import { describe } from './validate.js';
import { ErrorClass, addErrorClass, addErrorCode, addErrorString, errorClassOf, errorString, removeError } from './error-classes.js';
import { MPIException } from './exception.js';

/**
 * The MPI namespace's calls on error classes and codes: those a program adds (numbered above
 * MPI.ERR_LASTCODE; COMM_WORLD's MPI.LASTUSEDCODE follows them), their strings, and the class
 * and string of any code. The numbering is error-classes.ts's.
 */

/** A new error class (numbered above MPI.ERR_LASTCODE); COMM_WORLD's MPI.LASTUSEDCODE follows it. */
export function Add_error_class(): number {
  return addErrorClass();
}

/** A new error code in `errorclass` (a predefined class or one of Add_error_class). */
export function Add_error_code(errorclass: number): number {
  const code = addErrorCode(errorclass);
  if (code === null) throw new MPIException(ErrorClass.ERR_ARG, `MPI.Add_error_code: errorclass ${describe(errorclass)} is no error class`);
  return code;
}

/** The string of an added class or code (what Get_error_string and exception messages give). */
export function Add_error_string(errorcode: number, string: string): void {
  if (typeof string !== 'string') throw new MPIException(ErrorClass.ERR_ARG, `MPI.Add_error_string: string must be a string, got ${describe(string)}`);
  if (!addErrorString(errorcode, string)) {
    throw new MPIException(ErrorClass.ERR_ARG, `MPI.Add_error_string: errorcode ${describe(errorcode)} is no class or code ` +
      'of MPI.Add_error_class / MPI.Add_error_code (predefined strings cannot change)');
  }
}

/** The class of an error code. */
export function Get_error_class(errorcode: number): number {
  const errorClass = errorClassOf(errorcode);
  if (errorClass === null) throw new MPIException(ErrorClass.ERR_ARG, `MPI.Get_error_class: errorcode ${describe(errorcode)} is no error code`);
  return errorClass;
}

/** The text of an error class or code. */
export function Get_error_string(errorcode: number): string {
  if (errorClassOf(errorcode) === null) throw new MPIException(ErrorClass.ERR_ARG, `MPI.Get_error_string: errorcode ${describe(errorcode)} is no error code`);
  return errorString(errorcode);
}

/** MPI-4.1: removes an added class (once no added code is left in it). */
export function Remove_error_class(errorclass: number): void {
  remove('Remove_error_class', errorclass, 'class');
}

/** MPI-4.1: removes an added code. */
export function Remove_error_code(errorcode: number): void {
  remove('Remove_error_code', errorcode, 'code');
}

/** MPI-4.1: removes the string of an added class or code. */
export function Remove_error_string(errorcode: number): void {
  remove('Remove_error_string', errorcode, 'string');
}

function remove(call: string, code: unknown, kind: 'class' | 'code' | 'string'): void {
  const refusal = removeError(code, kind);
  if (refusal !== null) throw new MPIException(ErrorClass.ERR_ARG, `MPI.${call}: ${describe(code)} ${refusal}`);
}
