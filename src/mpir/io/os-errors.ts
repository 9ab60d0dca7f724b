import { ErrorClass } from '../error-classes.js';

/** The MPI I/O class of a failed fs call (Node's error code, from errno). */
export function ioClassOf(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT': return ErrorClass.ERR_NO_SUCH_FILE;
    case 'EACCES': case 'EPERM': return ErrorClass.ERR_ACCESS;
    case 'EEXIST': return ErrorClass.ERR_FILE_EXISTS;
    case 'ENOSPC': return ErrorClass.ERR_NO_SPACE;
    case 'EDQUOT': return ErrorClass.ERR_QUOTA;
    case 'EROFS': return ErrorClass.ERR_READ_ONLY;
    case 'EISDIR': case 'ENOTDIR': case 'ENAMETOOLONG': case 'ELOOP': case 'EINVAL': return ErrorClass.ERR_BAD_FILE;
    case 'ETXTBSY': case 'EBUSY': return ErrorClass.ERR_FILE_IN_USE;
    default: return ErrorClass.ERR_IO;
  }
}

/** The fs error's own message, without Node's call prefix noise. */
export function ioMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A failure of collective I/O, agreed on by every rank (the class of the first rank that failed). */
export class IOFailure extends Error {
  constructor(readonly errorClass: number, message: string) {
    super(message);
  }
}
