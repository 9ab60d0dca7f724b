/**
 * Error handlers. ERRORS_ARE_FATAL (the default) prints the error with the rank and ends the
 * whole job; ERRORS_RETURN throws the MPI.Exception to the caller and the process stays usable.
 */
export class Errhandler {
  private constructor(readonly name: 'MPI_ERRORS_ARE_FATAL' | 'MPI_ERRORS_RETURN' | 'MPI_ERRORS_ABORT') {}

  static readonly ERRORS_ARE_FATAL = new Errhandler('MPI_ERRORS_ARE_FATAL');
  static readonly ERRORS_RETURN = new Errhandler('MPI_ERRORS_RETURN');
  static readonly ERRORS_ABORT = new Errhandler('MPI_ERRORS_ABORT');

  /** @internal Whether an error ends the job (ERRORS_ARE_FATAL, ERRORS_ABORT). */
  get isFatal(): boolean {
    return this !== Errhandler.ERRORS_RETURN;
  }

  /** Predefined handlers are never freed; Free is accepted as MPI allows. */
  Free(): void {}
}
