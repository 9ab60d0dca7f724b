import { Comm } from './comm.js';
import { UNSUPPORTED, unsupportedCall } from './unsupported.js';

/**
 * The communicator methods of mpi4py that tsmpi does not implement (ULFM's, not in MPI-4): each
 * exists and raises MPI.ERR_UNSUPPORTED_OPERATION (unsupported.ts). They live here, declared
 * onto the class, so comm.ts holds what works.
 */
type Raises = (...args: unknown[]) => never;

declare module './comm.js' {
  interface Comm {
    Revoke: Raises;
    Is_revoked: Raises;
    Get_failed: Raises;
    Ack_failed: Raises;
    Agree: Raises;
    Iagree: Raises;
    Shrink: Raises;
    Ishrink: Raises;
  }
}

function define(target: object, methods: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(target, name, { value, writable: true, configurable: true });
  }
}

const ulfm = (name: string): Raises => unsupportedCall(`Comm.${name}`, UNSUPPORTED.ulfm);
define(Comm.prototype, {
  Revoke: ulfm('Revoke'), Is_revoked: ulfm('Is_revoked'), Get_failed: ulfm('Get_failed'), Ack_failed: ulfm('Ack_failed'),
  Agree: ulfm('Agree'), Iagree: ulfm('Iagree'), Shrink: ulfm('Shrink'), Ishrink: ulfm('Ishrink'),
});
