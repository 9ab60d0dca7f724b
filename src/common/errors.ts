/**
 * Internal error types. Every layer below the public API throws a subclass of TsmpiError with a
 * stable `code`; src/mpir maps them to MPI error classes in one place. Callers branch on the
 * class or the code, never on message text.
 */
export class TsmpiError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A TSMPI_* variable or launcher flag holds a value outside its accepted range. */
export class ConfigError extends TsmpiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TSMPI_CONFIG', message, options);
  }
}

/** The process manager could not be reached, or answered something we cannot use. */
export class PmiError extends TsmpiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TSMPI_PMI', message, options);
  }
}

/** Setting up the job's devices (segments, business cards) failed. */
export class BootstrapError extends TsmpiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TSMPI_BOOTSTRAP', message, options);
  }
}

/**
 * A one-sided call out of its epoch (an operation with no access epoch to its target, Complete
 * without Start, a second Lock of one rank, ...); the API reports MPI.ERR_RMA_SYNC.
 */
export class RmaSyncError extends TsmpiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TSMPI_RMA_SYNC', message, options);
  }
}

/** Memory attached to a dynamic window overlaps memory attached before, or was never attached: MPI.ERR_RMA_ATTACH. */
export class RmaAttachError extends TsmpiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TSMPI_RMA_ATTACH', message, options);
  }
}
