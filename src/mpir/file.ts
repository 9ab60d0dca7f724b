/** MPI.File lives in io/: the class and its calls (io/file.ts), the accesses (io/access.ts adds them). */
import './io/access.js';
import type { FileAccess } from './io/access.js';
import { File } from './io/file.js';
import { UNSUPPORTED, unsupportedCall } from './unsupported.js';

declare module './io/file.js' {
  interface File extends FileAccess {
    Iread_all(...args: unknown[]): never;
    Iwrite_all(...args: unknown[]): never;
    Iread_at_all(...args: unknown[]): never;
    Iwrite_at_all(...args: unknown[]): never;
  }
}

/** The non-blocking collective accesses: not implemented yet (README: Missing). */
for (const name of ['Iread_all', 'Iwrite_all', 'Iread_at_all', 'Iwrite_at_all']) {
  Object.defineProperty(File.prototype, name, {
    value: unsupportedCall(`File.${name}`, UNSUPPORTED.ioNonblockingCollective), writable: true, configurable: true,
  });
}

export { File, FILE_NULL } from './io/file.js';
export * as fileConstants from './io/constants.js';
