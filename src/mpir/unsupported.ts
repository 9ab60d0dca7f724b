import { ErrorClass } from './error-classes.js';
import { MPIException } from './exception.js';

/**
 * The calls tsmpi has but does not implement. Each exists (never an undefined property), raises
 * MPI.ERR_UNSUPPORTED_OPERATION naming itself and why, and the README's "Missing" lists it
 * (test/docs/api-names.test.ts keeps the two in step: every call here raises and is listed).
 */
export const UNSUPPORTED = {
  /** User data representations of MPI-IO (issue 18): files take native, internal and external32. */
  io: 'user data representations are not implemented; File.Set_view takes native, internal and external32',
  /** User-Level Failure Mitigation (MPIX_ in MPICH, not in MPI-4). */
  ulfm: 'fault tolerance (ULFM: Revoke, Shrink, Agree, failure acknowledgement) is not implemented',
  /** MPI-4.1's hardware resource query. */
  hwInfo: 'the hardware resource query of MPI-4.1 is not implemented; Split_type(MPI.COMM_TYPE_HW_GUIDED) knows mpi_shared_memory',
} as const;

/** Every call that raises, by name ('MPI.File.Open', 'Comm.Spawn', ...), for the README test. */
export const unsupportedCalls = new Map<string, (...args: unknown[]) => never>();

/** Raises for `call`, one of the calls above. */
export function unsupported(call: string, why: string): never {
  throw new MPIException(ErrorClass.ERR_UNSUPPORTED_OPERATION, `${call}: ${why} (README: Missing)`);
}

/** A function that raises for `call` whatever its arguments; registered for the README test. */
export function unsupportedCall(call: string, why: string): (...args: unknown[]) => never {
  const raise = (): never => unsupported(call, why);
  unsupportedCalls.set(call, raise);
  return raise;
}
