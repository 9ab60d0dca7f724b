/** MPI.File lives in io/: the class and its calls (io/file.ts), the accesses (io/access.ts adds them). */
import './io/access.js';
import type { FileAccess } from './io/access.js';

declare module './io/file.js' {
  interface File extends FileAccess {}
}

export { File, FILE_NULL } from './io/file.js';
export * as fileConstants from './io/constants.js';
