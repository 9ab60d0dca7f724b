import { fillEmpty, Request } from '../request.js';
import type { Status } from '../status.js';

/**
 * The request of a non-blocking independent access (Iread_at, Iwrite, Iread_shared, ...). Node's
 * fs has no asynchronous positional I/O that a progress engine could poll without a thread pool
 * round trip per block, so the access is done when the I-call runs, as ROMIO does on
 * filesystems without asynchronous I/O; the request is then complete, and Wait, Test and the
 * list calls give its status: the bytes accessed.
 */
export class FileRequest extends Request {
  /** @internal */
  constructor(private readonly bytes: number) {
    super(null, null);
    this.procNull = true;
  }

  protected override finish(status: Status | undefined, _call: string): void {
    if (status) this.describe(status);
    this.procNull = false;
  }

  override Get_status(status?: Status): boolean {
    if (status && this.procNull) this.describe(status);
    return true;
  }

  private describe(status: Status): void {
    fillEmpty(status);
    status.count = this.bytes;
  }
}
