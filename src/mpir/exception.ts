import { ErrorClass, errorClassOf, errorString } from './error-classes.js';

/** Brand that keeps `instanceof MPI.Exception` true across two loaded copies of tsmpi. */
const BRAND = Symbol.for('tsmpi.MPIException');

/**
 * MPI.Exception: an MPI error with its error class, as mpi4py raises it. The message says
 * which call failed, what was wrong and what was expected.
 */
export class MPIException extends Error {
  readonly error_class: number;
  readonly error_code: number;

  /**
   * `new MPI.Exception(code)` as in mpi4py: the class is the code's (a code of MPI.Add_error_code
   * belongs to the class it was added to); the message defaults to the code's error string.
   */
  constructor(errorCode: number, message?: string, options?: { cause?: unknown }) {
    super(message ?? errorString(errorCode), options);
    this.name = 'MPI.Exception';
    this.error_class = errorClassOf(errorCode) ?? ErrorClass.ERR_UNKNOWN;
    this.error_code = errorCode;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  Get_error_class(): number {
    return this.error_class;
  }

  Get_error_code(): number {
    return this.error_code;
  }

  Get_error_string(): string {
    return errorString(this.error_code);
  }
}
