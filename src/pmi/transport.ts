import fs from 'node:fs';
import { PmiError } from '../common/errors.js';
import { addon } from '../native/addon.js';
import { PMI_MAXLINE } from './wire.js';

/**
 * A synchronous line channel on a socket file descriptor. MPI.Init() is synchronous, so the
 * PMI client reads and writes its socket with blocking fs.readSync/fs.writeSync: the fd was
 * either inherited (PMI_FD) or connected by the addon's blocking connect (PMI_PORT).
 */
export class FdLineChannel {
  private readonly chunk = Buffer.alloc(PMI_MAXLINE * 4);
  private pending = '';
  private closed = false;

  constructor(readonly fd: number, private readonly describe: string) {
    addon.setBlocking(fd, true);
  }

  send(line: string): void {
    const bytes = Buffer.from(line);
    let off = 0;
    while (off < bytes.length) {
      try {
        off += fs.writeSync(this.fd, bytes, off, bytes.length - off);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN' || (e as NodeJS.ErrnoException).code === 'EINTR') continue;
        throw new PmiError(`PMI: writing to the process manager (${this.describe}) failed: ${(e as Error).message}`, { cause: e });
      }
    }
  }

  /** The next whole line, newline included. */
  receive(): string {
    for (;;) {
      const nl = this.pending.indexOf('\n');
      if (nl >= 0) {
        const line = this.pending.slice(0, nl + 1);
        this.pending = this.pending.slice(nl + 1);
        return line;
      }
      if (this.closed) throw new PmiError(`PMI: the process manager (${this.describe}) closed the connection`);
      let n: number;
      try {
        n = fs.readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EINTR') continue;
        throw new PmiError(`PMI: reading from the process manager (${this.describe}) failed: ${(e as Error).message}`, { cause: e });
      }
      if (n === 0) this.closed = true;
      else this.pending += this.chunk.toString('utf8', 0, n);
    }
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already closed by the other side's exit; nothing is left to release.
    }
  }
}
