import { ErrorClass } from './error-classes.js';
import { Errhandler } from './errhandler.js';
import { MPIException } from './exception.js';
import { abortJob } from './abort.js';
import { runtime } from './runtime.js';

/** What a communicator is once MPI runs: its ranks and its error handler. */
interface CommCore {
  readonly rank: number;
  readonly size: number;
  /** World rank of each member, indexed by rank in this communicator. */
  readonly worldRanks: Int32Array;
}

/**
 * A communicator, mpi4py-style: `comm.rank`/`comm.size`, `Get_rank()`, and so on. The
 * predefined COMM_WORLD and COMM_SELF exist before Init (as in mpi4py) and come to life in it.
 */
export class Comm {
  private core: CommCore | null = null;
  private errhandler: Errhandler = Errhandler.ERRORS_ARE_FATAL;

  constructor(private name: string) {}

  /** Binds a predefined communicator at Init; unbinds it at Finalize (core null). */
  bind(core: CommCore | null): void {
    this.core = core;
  }

  protected live(call: string): CommCore {
    runtime.requireRunning(`${this.name}.${call}`);
    return this.core!;
  }

  get rank(): number { return this.live('rank').rank; }
  get size(): number { return this.live('size').size; }

  /** The calling process's rank in this communicator. */
  Get_rank(): number { return this.live('Get_rank').rank; }

  /** The number of processes in this communicator. */
  Get_size(): number { return this.live('Get_size').size; }

  Get_name(): string {
    return this.name;
  }

  Set_name(name: string): void {
    if (typeof name !== 'string') this.fail('Set_name', ErrorClass.ERR_ARG, `name must be a string, got ${typeof name}`);
    this.name = name;
  }

  Set_errhandler(handler: Errhandler): void {
    if (!(handler instanceof Errhandler)) {
      this.fail('Set_errhandler', ErrorClass.ERR_ARG, 'handler must be MPI.ERRORS_RETURN, MPI.ERRORS_ARE_FATAL or MPI.ERRORS_ABORT');
    }
    this.errhandler = handler;
  }

  Get_errhandler(): Errhandler {
    return this.errhandler;
  }

  /** Ends every process of the job with `errorcode` as exit status. */
  Abort(errorcode = 0): never {
    return abortJob(errorcode, `application called MPI.Abort(${this.name}, ${errorcode})`);
  }

  /**
   * Reports an error through this communicator's handler: throws under ERRORS_RETURN, ends the
   * job (after printing the message with the rank) under ERRORS_ARE_FATAL.
   */
  fail(call: string, errorClass: number, message: string): never {
    const exception = new MPIException(errorClass, `${this.name}.${call}: ${message}`);
    if (!this.errhandler.isFatal || runtime.phase !== 'running') throw exception;
    const rank = this.core?.rank ?? 0;
    return abortJob(1, `tsmpi: rank ${rank}: fatal error (MPI.ERRORS_ARE_FATAL): ${exception.message}`);
  }
}

/** A communicator within one group of processes. */
export class Intracomm extends Comm {}

export function worldCore(rank: number, size: number): CommCore {
  const worldRanks = new Int32Array(size);
  for (let r = 0; r < size; r++) worldRanks[r] = r;
  return { rank, size, worldRanks };
}

export function selfCore(worldRank: number): CommCore {
  return { rank: 0, size: 1, worldRanks: Int32Array.of(worldRank) };
}
