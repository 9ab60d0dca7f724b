import { abortJob } from './abort.js';
import { describe } from './validate.js';
import { ErrorClass, errorClassOf, errorString } from './error-classes.js';
import { MPIException } from './exception.js';
import { runtime } from './runtime.js';

/**
 * The kind of object a user handler was made for: Comm.Create_errhandler makes one for
 * communicators, File.Create_errhandler for files, and so on; each goes on its kind only.
 */
export type HandlerObject = 'communicator' | 'window' | 'session' | 'file';

/** A user handler: called with the object the error happened on and the error code. */
export type ErrhandlerFunction<T = unknown> = (obj: T, errorcode: number) => void;

type Action =
  | { readonly kind: 'fatal' }
  | { readonly kind: 'return' }
  | { readonly kind: 'abort' }
  | { readonly kind: 'user'; readonly object: HandlerObject; readonly fn: ErrhandlerFunction<never> };

/**
 * Error handlers. ERRORS_ARE_FATAL (the default) prints the error with the rank and ends the
 * whole job; ERRORS_ABORT does the same (a rank's job is the processes it could abort);
 * ERRORS_RETURN throws the MPI.Exception to the caller and the process stays usable. A user
 * handler (Comm/Win/Session.Create_errhandler) is called with the object and the error code, and
 * the call then throws the MPI.Exception as under ERRORS_RETURN, which is what mpi4py does with
 * the code the C call returns after the handler.
 */
export class Errhandler {
  private freed = false;

  private constructor(readonly name: string, private readonly action: Action) {}

  static readonly ERRORS_ARE_FATAL = new Errhandler('MPI_ERRORS_ARE_FATAL', { kind: 'fatal' });
  static readonly ERRORS_RETURN = new Errhandler('MPI_ERRORS_RETURN', { kind: 'return' });
  static readonly ERRORS_ABORT = new Errhandler('MPI_ERRORS_ABORT', { kind: 'abort' });

  /** @internal The body of Comm/Win/Session/File.Create_errhandler. */
  static user(object: HandlerObject, call: string, fn: unknown): Errhandler {
    if (typeof fn !== 'function') {
      throw new MPIException(ErrorClass.ERR_ARG, `${call}: errhandler_fn must be a function(obj, errorcode), got ${describe(fn)}`);
    }
    return new Errhandler(`user errhandler for a ${object}`, { kind: 'user', object, fn: fn as ErrhandlerFunction<never> });
  }

  /** The handler as the API names it: MPI.ERRORS_ARE_FATAL, MPI.ERRORS_ABORT, ... */
  private get apiName(): string {
    return this.name.replace(/^MPI_/, 'MPI.');
  }

  /** @internal Whether an error ends the job (ERRORS_ARE_FATAL, ERRORS_ABORT). */
  get isFatal(): boolean {
    return this.action.kind === 'fatal' || this.action.kind === 'abort';
  }

  /**
   * Frees the handle. Objects that have this handler keep it (the standard frees it with the
   * last of them); setting a freed handler again is an error. Predefined handlers stay.
   */
  Free(): void {
    if (this.action.kind === 'user') this.freed = true;
  }

  /**
   * @internal Why `handler` cannot be set on an object of kind `object`, or null when it can: a
   * predefined handler goes anywhere, a user one on the kind it was made for, while not freed.
   */
  static refusal(handler: unknown, object: HandlerObject): string | null {
    if (!(handler instanceof Errhandler)) {
      return `handler must be an MPI.Errhandler (MPI.ERRORS_RETURN, MPI.ERRORS_ARE_FATAL, MPI.ERRORS_ABORT or one of Create_errhandler), got ${describe(handler)}`;
    }
    if (handler.freed) return 'handler has been freed';
    const action = handler.action;
    if (action.kind === 'user' && action.object !== object) {
      return `handler was made for a ${action.object} and cannot be set on a ${object}`;
    }
    return null;
  }

  /**
   * @internal Raises `exception` on `target` through this handler: the user's function first,
   * then a throw; or the end of the job under a fatal handler. Before Init and after Finalize
   * every error is thrown, as there is no job to end.
   */
  raise(target: unknown, exception: MPIException, rank: number): never {
    const action = this.action;
    if (runtime.phase === 'running') {
      if (action.kind === 'user') (action.fn as ErrhandlerFunction)(target, exception.error_code);
      else if (this.isFatal) return abortJob(1, `tsmpi: rank ${rank}: fatal error (${this.apiName}): ${exception.message}`);
    }
    throw exception;
  }

  /**
   * @internal Comm/Win/Session.Call_errhandler: runs this handler for `errorcode` and returns
   * (ERRORS_RETURN does nothing; a fatal handler ends the job).
   */
  call(target: unknown, call: string, errorcode: unknown, rank: number): void {
    if (errorClassOf(errorcode) === null) {
      throw new MPIException(ErrorClass.ERR_ARG, `${call}: errorcode ${describe(errorcode)} is no MPI error class or code`);
    }
    const code = errorcode as number;
    const action = this.action;
    if (action.kind === 'user') (action.fn as ErrhandlerFunction)(target, code);
    else if (this.isFatal && runtime.phase === 'running') {
      abortJob(1, `tsmpi: rank ${rank}: fatal error (${this.apiName}): ${call}: error code ${code}: ${errorString(code)}`);
    }
  }
}
